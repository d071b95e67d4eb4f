#include "model/read_cover.h"

#include <algorithm>
#include <iterator>

namespace iolens::model {

void ReadCover::split(uint64_t x) {
    auto it = frags_.upper_bound(x);
    if (it == frags_.begin()) return;
    --it;
    if (it->first == x || it->second.hi <= x) return;
    const Frag tail{it->second.hi, it->second.end_ns};
    it->second.hi = x;
    frags_.emplace_hint(std::next(it), x, tail);
}

void ReadCover::add(uint64_t lo, uint64_t hi, uint64_t end_ns) {
    if (lo >= hi) return;
    split(lo);
    split(hi);
    // Fragments inside [lo, hi) read at or before end_ns are replaced by one
    // fragment; later-read ones stay, and the gaps between them are filled.
    uint64_t at = lo;
    auto it = frags_.lower_bound(lo);
    while (at < hi) {
        if (it != frags_.end() && it->first == at) {
            if (it->second.end_ns <= end_ns) {
                it = frags_.erase(it);
                continue;  // `at` stays: the gap now starts here
            }
            at = it->second.hi;
            ++it;
            continue;
        }
        const uint64_t gap_end = it != frags_.end() && it->first < hi ? it->first : hi;
        frags_.emplace_hint(it, at, Frag{gap_end, end_ns});
        at = gap_end;
    }
    // Merge with neighbours read at the same time (a run of reads of one
    // sequential stream shares its end time only rarely; cheap to try).
    auto first = frags_.find(lo);
    if (first != frags_.begin() && first != frags_.end()) {
        auto prev = std::prev(first);
        if (prev->second.hi == lo && prev->second.end_ns == first->second.end_ns) {
            prev->second.hi = first->second.hi;
            frags_.erase(first);
        }
    }
}

uint64_t ReadCover::read_since(uint64_t lo, uint64_t hi, uint64_t since_ns) const {
    uint64_t pages = 0;
    auto it = frags_.upper_bound(lo);
    if (it != frags_.begin()) --it;
    for (; it != frags_.end() && it->first < hi; ++it) {
        if (it->second.hi <= lo || it->second.end_ns < since_ns) continue;
        pages += std::min(hi, it->second.hi) - std::max(lo, it->first);
    }
    return pages;
}

}  // namespace iolens::model
