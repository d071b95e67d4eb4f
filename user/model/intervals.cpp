#include "model/intervals.h"

#include <algorithm>

namespace iolens::model {

IntervalSet::IntervalSet(std::vector<Interval> in) {
    // Already sorted, disjoint and non-empty (a rank's stall sweep, with as
    // many pieces as calls in a single-threaded loop): keep it, no copy.
    bool ready = true;
    for (size_t i = 0; i < in.size() && ready; ++i)
        ready = in[i].start < in[i].end && (i == 0 || in[i - 1].end < in[i].start);
    if (ready) {
        v_ = std::move(in);
        return;
    }
    std::erase_if(in, [](const Interval& i) { return i.end <= i.start; });
    std::sort(in.begin(), in.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
    for (const auto& i : in) {
        if (!v_.empty() && i.start <= v_.back().end)
            v_.back().end = std::max(v_.back().end, i.end);
        else
            v_.push_back(i);
    }
}

uint64_t IntervalSet::measure() const {
    uint64_t t = 0;
    for (const auto& i : v_) t += i.end - i.start;
    return t;
}

uint64_t IntervalSet::measure_within(uint64_t lo, uint64_t hi) const {
    if (hi <= lo) return 0;
    // First interval ending after lo.
    auto it =
        std::upper_bound(v_.begin(), v_.end(), lo, [](uint64_t t, const Interval& i) { return t < i.end; });
    uint64_t t = 0;
    for (; it != v_.end() && it->start < hi; ++it) t += std::min(it->end, hi) - std::max(it->start, lo);
    return t;
}

IntervalSet IntervalSet::unite(const IntervalSet& o) const {
    // Both sorted and disjoint: one merge by start, no copy to sort.
    IntervalSet out;
    size_t i = 0, j = 0;
    while (i < v_.size() || j < o.v_.size()) {
        const Interval& next =
            j >= o.v_.size() || (i < v_.size() && v_[i].start <= o.v_[j].start) ? v_[i++] : o.v_[j++];
        if (!out.v_.empty() && next.start <= out.v_.back().end)
            out.v_.back().end = std::max(out.v_.back().end, next.end);
        else
            out.v_.push_back(next);
    }
    return out;
}

IntervalSet IntervalSet::intersect(const IntervalSet& o) const {
    IntervalSet out;
    size_t i = 0, j = 0;
    while (i < v_.size() && j < o.v_.size()) {
        const uint64_t s = std::max(v_[i].start, o.v_[j].start);
        const uint64_t e = std::min(v_[i].end, o.v_[j].end);
        if (s < e) out.v_.push_back({s, e});  // already sorted and disjoint
        if (v_[i].end < o.v_[j].end)
            ++i;
        else
            ++j;
    }
    return out;
}

}  // namespace iolens::model
