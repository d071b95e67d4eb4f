#pragma once
// Sets of time intervals [start, end) on the monotonic clock, kept sorted and
// disjoint: the unions behind io_time_ns and critical_io_ns. Built by sorting
// once and sweeping (O(n log n)), never by per-event updates.
#include <cstdint>
#include <vector>

namespace iolens::model {

struct Interval {
    uint64_t start = 0;
    uint64_t end = 0;  // exclusive; end <= start is empty
};

// Sorted, disjoint, non-empty intervals. Construct from any intervals.
class IntervalSet {
public:
    IntervalSet() = default;
    explicit IntervalSet(std::vector<Interval> intervals);  // sorts and merges

    const std::vector<Interval>& intervals() const { return v_; }
    bool empty() const { return v_.empty(); }
    uint64_t measure() const;                                 // total length
    uint64_t measure_within(uint64_t lo, uint64_t hi) const;  // of the part inside [lo, hi)
    IntervalSet unite(const IntervalSet& o) const;
    IntervalSet intersect(const IntervalSet& o) const;

private:
    std::vector<Interval> v_;
};

}  // namespace iolens::model
