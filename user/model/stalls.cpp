#include "model/stalls.h"

#include <algorithm>

namespace iolens::model {

namespace {

bool is_root(const std::vector<uint32_t>& roots, uint32_t pid) {
    return std::binary_search(roots.begin(), roots.end(), pid);
}

Interval of(const CallEvent& e) { return {e.start_ns, e.start_ns + e.duration_ns}; }

}  // namespace

RankStalls rank_stalls(const std::vector<const CallEvent*>& calls,
                       const std::vector<uint32_t>& roots, const std::vector<OffCpuEvent>& offcpu) {
    RankStalls out;
    std::vector<Interval> io, main_io, main_off;
    io.reserve(calls.size());
    for (const CallEvent* e : calls) {
        io.push_back(of(*e));
        if (e->tid == e->pid && is_root(roots, e->pid)) main_io.push_back(of(*e));
    }
    for (const auto& o : offcpu)
        if (o.tid == o.pid && is_root(roots, o.pid)) main_off.push_back({o.start_ns, o.end_ns});
    out.io = IntervalSet(std::move(io));
    out.critical = IntervalSet(std::move(main_io)).unite(IntervalSet(std::move(main_off)).intersect(out.io));

    // Per thread: sort by (pid, tid, start) and sweep.
    std::vector<const CallEvent*> by_thread = calls;
    std::sort(by_thread.begin(), by_thread.end(), [](const CallEvent* a, const CallEvent* b) {
        if (a->pid != b->pid) return a->pid < b->pid;
        if (a->tid != b->tid) return a->tid < b->tid;
        return a->start_ns < b->start_ns;
    });
    for (size_t i = 0; i < by_thread.size();) {
        const uint32_t pid = by_thread[i]->pid, tid = by_thread[i]->tid;
        uint64_t total = 0, s = by_thread[i]->start_ns, e = s + by_thread[i]->duration_ns;
        for (++i; i < by_thread.size() && by_thread[i]->pid == pid && by_thread[i]->tid == tid; ++i) {
            const Interval iv = of(*by_thread[i]);
            if (iv.start <= e) {
                e = std::max(e, iv.end);
            } else {
                total += e - s;
                s = iv.start;
                e = iv.end;
            }
        }
        total += e - s;
        out.threads.push_back({pid, tid, total});
    }
    std::stable_sort(out.threads.begin(), out.threads.end(),
                     [](const ThreadIo& a, const ThreadIo& b) { return a.io_ns > b.io_ns; });
    return out;
}

}  // namespace iolens::model
