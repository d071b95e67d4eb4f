#include "model/report.h"

#include <algorithm>
#include <functional>

namespace iolens::model {

namespace {
// Indexed by enum iolens_op; also the JSON keys and the table row labels.
constexpr const char* kOpNames[kOpCount] = {
    "read", "write", "open", "close", "stat", "seek", "mmap", "readdir", "sync",
};
}  // namespace

const char* op_name(int op) { return op >= 0 && op < kOpCount ? kOpNames[op] : "unknown"; }

void OpStats::merge(const OpStats& o) {
    calls += o.calls;
    errors += o.errors;
    bytes += o.bytes;
    requested_bytes += o.requested_bytes;
    time_ns += o.time_ns;
    blocked_ns += o.blocked_ns;
    latency_ns.merge(o.latency_ns);
    size_bytes.merge(o.size_bytes);
}

const char* path_name(int path) {
    static constexpr const char* kNames[kPathCount] = {"syscall", "copy", "aio", "io_uring"};
    return path >= 0 && path < kPathCount ? kNames[path] : "unknown";
}

void PathOps::merge(const PathOps& o) {
    calls += o.calls;
    errors += o.errors;
    bytes += o.bytes;
    requested_bytes += o.requested_bytes;
    time_ns += o.time_ns;
    offloaded += o.offloaded;
}

void PathOps::subtract(const PathOps& o) {
    calls -= o.calls;
    errors -= o.errors;
    bytes -= o.bytes;
    requested_bytes -= o.requested_bytes;
    time_ns -= o.time_ns;
    offloaded -= o.offloaded;
}

bool PathTable::any_other_path() const {
    for (int path = 1; path < kPathCount; ++path)
        for (const auto& o : by[path])
            if (o.calls) return true;
    return false;
}

void PathTable::merge(const PathTable& o) {
    for (int path = 0; path < kPathCount; ++path)
        for (int op = 0; op < kOpCount; ++op) by[path][op].merge(o.by[path][op]);
}

void PathTable::complete(const OpTable& ops) {
    for (int op = 0; op < kOpCount; ++op) {
        PathOps rest{ops[op].calls, ops[op].errors, ops[op].bytes, ops[op].requested_bytes, ops[op].time_ns};
        for (int path = 1; path < kPathCount; ++path) rest.subtract(by[path][op]);
        by[IOLENS_PATH_SYSCALL][op] = rest;
    }
}

uint64_t rw_bytes(const OpTable& ops) { return ops[IOLENS_OP_READ].bytes + ops[IOLENS_OP_WRITE].bytes; }

const char* epoch_source_name(EpochSource s) { return s == EpochSource::Marker ? "marker" : "inferred"; }

std::optional<double> sequential_share(uint64_t sequential, uint64_t random) {
    if (sequential + random == 0) return std::nullopt;
    return static_cast<double>(sequential) / static_cast<double>(sequential + random);
}

uint64_t steps_marked(const Report& report) {
    uint64_t steps = 0;
    for (const auto& e : report.epochs) steps += e.steps;
    return steps;
}

uint64_t CallSplit::startup_time_ns() const { return total_time_ns(startup); }

uint64_t total_time_ns(const OpTable& ops) {
    uint64_t t = 0;
    for (const auto& s : ops) t += s.time_ns;
    return t;
}

namespace {

// The n processes with the largest key, largest first (ties: lower pid, then
// earlier start); with skip_zero, processes whose key is 0 are left out.
std::vector<const ProcessStats*> rank_processes(const Report& report, size_t n,
                                                const std::function<uint64_t(const ProcessStats&)>& key,
                                                bool skip_zero) {
    std::vector<const ProcessStats*> out;
    out.reserve(report.processes.size());
    for (const auto& p : report.processes)
        if (!skip_zero || key(p) != 0) out.push_back(&p);
    const auto order = [&](const ProcessStats* a, const ProcessStats* b) {
        const uint64_t ka = key(*a), kb = key(*b);
        if (ka != kb) return ka > kb;
        if (a->info.pid != b->info.pid) return a->info.pid < b->info.pid;
        return a->info.start_ns < b->info.start_ns;
    };
    n = std::min(n, out.size());
    std::partial_sort(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(n), out.end(), order);
    out.resize(n);
    return out;
}

}  // namespace

std::vector<const ProcessStats*> top_processes(const Report& report, size_t n) {
    return rank_processes(
        report, n, [](const ProcessStats& p) { return rw_bytes(p.ops); }, false);
}

std::vector<const ProcessStats*> top_processes_by_cache_in(const Report& report, size_t n) {
    return rank_processes(
        report, n, [](const ProcessStats& p) { return p.page_cache.brought_in(); }, true);
}

std::vector<const ProcessStats*> top_processes_by_block(const Report& report, size_t n) {
    return rank_processes(
        report, n, [](const ProcessStats& p) { return p.block.read_bytes + p.block.write_bytes; }, true);
}

std::vector<const FileStats*> top_files_by_cache_in(const Report& report, size_t n) {
    std::vector<const FileStats*> out;
    for (const auto& f : report.files)
        if (f.page_cache.brought_in() != 0) out.push_back(&f);
    // Stable: equal files keep the report's order (bytes, then path).
    std::stable_sort(out.begin(), out.end(), [](const FileStats* a, const FileStats* b) {
        return a->page_cache.brought_in() > b->page_cache.brought_in();
    });
    if (out.size() > n) out.resize(n);
    return out;
}

}  // namespace iolens::model
