#include "model/report.h"

#include <algorithm>

namespace iolens::model {

namespace {
// Indexed by enum iolens_op; also the JSON keys and the table row labels.
constexpr const char* kOpNames[kOpCount] = {
    "read", "write", "open", "close", "stat", "seek", "mmap", "readdir", "sync",
};
}  // namespace

const char* op_name(int op) {
    return op >= 0 && op < kOpCount ? kOpNames[op] : "unknown";
}

// The kernel's internal dev_t (MINORBITS = 20), not the user-space encoding.
uint32_t dev_major(uint32_t dev) { return dev >> 20; }
uint32_t dev_minor(uint32_t dev) { return dev & 0xfffff; }

void OpStats::merge(const OpStats& o) {
    calls += o.calls;
    errors += o.errors;
    bytes += o.bytes;
    requested_bytes += o.requested_bytes;
    time_ns += o.time_ns;
    latency_ns.merge(o.latency_ns);
    size_bytes.merge(o.size_bytes);
}

uint64_t rw_bytes(const OpTable& ops) {
    return ops[IOLENS_OP_READ].bytes + ops[IOLENS_OP_WRITE].bytes;
}

uint64_t total_time_ns(const OpTable& ops) {
    uint64_t t = 0;
    for (const auto& s : ops) t += s.time_ns;
    return t;
}

std::vector<const ProcessStats*> top_processes(const Report& report, size_t n) {
    std::vector<const ProcessStats*> out;
    out.reserve(report.processes.size());
    for (const auto& p : report.processes) out.push_back(&p);
    const auto by_bytes = [](const ProcessStats* a, const ProcessStats* b) {
        const uint64_t ba = rw_bytes(a->ops), bb = rw_bytes(b->ops);
        if (ba != bb) return ba > bb;
        if (a->info.pid != b->info.pid) return a->info.pid < b->info.pid;
        return a->info.start_ns < b->info.start_ns;
    };
    n = std::min(n, out.size());
    std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n), out.end(), by_bytes);
    out.resize(n);
    return out;
}

}  // namespace iolens::model
