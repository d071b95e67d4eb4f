#include "model/stalls.h"

#include <algorithm>

namespace iolens::model {

void StallSweep::extend(std::vector<Interval>& v, uint64_t s, uint64_t e) {
    if (e <= s) return;  // empty: IntervalSet drops those too
    if (!v.empty() && s <= v.back().end)
        v.back().end = std::max(v.back().end, e);
    else
        v.push_back({s, e});
}

void StallSweep::add(const CallEvent& c) {
    const uint64_t s = c.start_ns, e = c.start_ns + c.duration_ns;
    extend(io_, s, e);
    if (c.tid == c.pid && std::binary_search(roots_.begin(), roots_.end(), c.pid))
        extend(main_io_, s, e);
    // Per thread: the union of its calls (zero-length calls start a run too).
    auto [it, inserted] = threads_.try_emplace(uint64_t{c.pid} << 32 | c.tid);
    Run& r = it->second;
    if (inserted) {
        r.s = s;
        r.e = e;
    } else if (s <= r.e) {
        r.e = std::max(r.e, e);
    } else {
        r.total += r.e - r.s;
        r.s = s;
        r.e = e;
    }
}

RankStalls StallSweep::finish(const std::vector<OffCpuEvent>& offcpu) && {
    RankStalls out;
    std::vector<Interval> main_off;
    for (const auto& o : offcpu)
        if (o.tid == o.pid && std::binary_search(roots_.begin(), roots_.end(), o.pid))
            main_off.push_back({o.start_ns, o.end_ns});
    // Already sorted and disjoint: the constructor's sort and merge keep them.
    out.io = IntervalSet(std::move(io_));
    out.critical = IntervalSet(std::move(main_io_)).unite(IntervalSet(std::move(main_off)).intersect(out.io));
    out.threads.reserve(threads_.size());
    for (const auto& [key, r] : threads_)
        out.threads.push_back({static_cast<uint32_t>(key >> 32), static_cast<uint32_t>(key), r.total + (r.e - r.s)});
    std::sort(out.threads.begin(), out.threads.end(), [](const ThreadIo& a, const ThreadIo& b) {
        return a.pid != b.pid ? a.pid < b.pid : a.tid < b.tid;
    });
    std::stable_sort(out.threads.begin(), out.threads.end(),
                     [](const ThreadIo& a, const ThreadIo& b) { return a.io_ns > b.io_ns; });
    return out;
}

RankStalls rank_stalls(const std::vector<const CallEvent*>& calls,
                       const std::vector<uint32_t>& roots, const std::vector<OffCpuEvent>& offcpu) {
    std::vector<const CallEvent*> sorted = calls;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const CallEvent* a, const CallEvent* b) { return a->start_ns < b->start_ns; });
    StallSweep sweep(roots);
    for (const CallEvent* e : sorted) sweep.add(*e);
    return std::move(sweep).finish(offcpu);
}

}  // namespace iolens::model
