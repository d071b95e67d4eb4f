#include "model/stalls.h"

#include <algorithm>

namespace iolens::model {

StallSweep::StallSweep(std::vector<uint32_t> roots, const std::vector<OffCpuEvent>& offcpu,
                       std::vector<Interval> windows)
    : roots_(std::move(roots)), windows_(std::move(windows)) {
    std::vector<Interval> off;
    for (const auto& o : offcpu)
        if (o.tid == o.pid && std::binary_search(roots_.begin(), roots_.end(), o.pid))
            off.push_back({o.start_ns, o.end_ns});
    main_off_ = IntervalSet(std::move(off));
    for (Measure* m : {&io_m_, &io_off_m_, &main_m_, &main_off_m_}) m->in.assign(windows_.size(), 0);
}

void StallSweep::Measure::add(uint64_t s, uint64_t e, const std::vector<Interval>& w) {
    total += e - s;
    while (first < w.size() && w[first].end <= s) ++first;
    for (size_t k = first; k < w.size() && w[k].start < e; ++k) {
        const uint64_t lo = std::max(s, w[k].start), hi = std::min(e, w[k].end);
        if (hi > lo) in[k] += hi - lo;
    }
}

// A finished piece of a union: measured, and its overlap with the main
// threads' off-CPU time measured too.
void StallSweep::close(Sweep& u, Measure& whole, Measure& with_off) {
    if (!u.open) return;
    whole.add(u.s, u.e, windows_);
    const auto& off = main_off_.intervals();
    while (u.off < off.size() && off[u.off].end <= u.s) ++u.off;
    for (size_t j = u.off; j < off.size() && off[j].start < u.e; ++j) {
        const uint64_t lo = std::max(u.s, off[j].start), hi = std::min(u.e, off[j].end);
        if (hi > lo) with_off.add(lo, hi, windows_);
    }
    u.open = false;
}

void StallSweep::extend(Sweep& u, uint64_t s, uint64_t e, Measure& whole, Measure& with_off) {
    if (e <= s) return;  // empty: adds nothing to a union
    if (u.open && s <= u.e) {
        u.e = std::max(u.e, e);
        return;
    }
    close(u, whole, with_off);
    u.open = true;
    u.s = s;
    u.e = e;
}

void StallSweep::add(const OrderedCall& c) {
    // An async request's time (submission to completion) is not time its
    // thread spent waiting: a loader that keeps 16 io_uring reads in flight
    // while it computes is not stalled. (Its waits inside io_getevents or
    // io_uring_enter are not file-I/O calls, so they are not counted either.)
    if (c.has(CallEvent::kAsync)) return;
    const uint64_t s = c.start_ns, e = c.start_ns + c.duration_ns;
    extend(io_, s, e, io_m_, io_off_m_);
    if (c.tid == c.pid && std::binary_search(roots_.begin(), roots_.end(), c.pid))
        extend(main_, s, e, main_m_, main_off_m_);
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

RankStalls StallSweep::finish() && {
    close(io_, io_m_, io_off_m_);
    close(main_, main_m_, main_off_m_);
    RankStalls out;
    out.io_ns = io_m_.total;
    // main_io is inside io, so main_io ∩ off = main_io ∩ off ∩ io.
    out.critical_ns = main_m_.total + io_off_m_.total - main_off_m_.total;
    out.io_in = std::move(io_m_.in);
    out.critical_in.resize(windows_.size());
    for (size_t k = 0; k < windows_.size(); ++k)
        out.critical_in[k] = main_m_.in[k] + io_off_m_.in[k] - main_off_m_.in[k];
    out.threads.reserve(threads_.size());
    for (const auto& [key, r] : threads_)
        out.threads.push_back(
            {static_cast<uint32_t>(key >> 32), static_cast<uint32_t>(key), r.total + (r.e - r.s)});
    std::sort(out.threads.begin(), out.threads.end(), [](const ThreadIo& a, const ThreadIo& b) {
        return a.pid != b.pid ? a.pid < b.pid : a.tid < b.tid;
    });
    std::stable_sort(out.threads.begin(), out.threads.end(),
                     [](const ThreadIo& a, const ThreadIo& b) { return a.io_ns > b.io_ns; });
    return out;
}

RankStalls rank_stalls(const std::vector<const CallEvent*>& calls, const std::vector<uint32_t>& roots,
                       const std::vector<OffCpuEvent>& offcpu, std::vector<Interval> windows) {
    std::vector<const CallEvent*> sorted = calls;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const CallEvent* a, const CallEvent* b) { return a->start_ns < b->start_ns; });
    StallSweep sweep(roots, offcpu, std::move(windows));
    for (const CallEvent* e : sorted) sweep.add(*e);
    return std::move(sweep).finish();
}

}  // namespace iolens::model
