#include "model/intervals.h"

#include <algorithm>

namespace iolens::model {

IntervalSet::IntervalSet(std::vector<Interval> in) {
    std::erase_if(in, [](const Interval& i) { return i.end <= i.start; });
    std::sort(in.begin(), in.end(),
              [](const Interval& a, const Interval& b) { return a.start < b.start; });
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
    auto it = std::upper_bound(v_.begin(), v_.end(), lo,
                               [](uint64_t t, const Interval& i) { return t < i.end; });
    uint64_t t = 0;
    for (; it != v_.end() && it->start < hi; ++it)
        t += std::min(it->end, hi) - std::max(it->start, lo);
    return t;
}

IntervalSet IntervalSet::unite(const IntervalSet& o) const {
    std::vector<Interval> all = v_;
    all.insert(all.end(), o.v_.begin(), o.v_.end());
    return IntervalSet(std::move(all));
}

IntervalSet IntervalSet::intersect(const IntervalSet& o) const {
    IntervalSet out;
    size_t i = 0, j = 0;
    while (i < v_.size() && j < o.v_.size()) {
        const uint64_t s = std::max(v_[i].start, o.v_[j].start);
        const uint64_t e = std::min(v_[i].end, o.v_[j].end);
        if (s < e) out.v_.push_back({s, e});  // already sorted and disjoint
        if (v_[i].end < o.v_[j].end) ++i;
        else ++j;
    }
    return out;
}

}  // namespace iolens::model
