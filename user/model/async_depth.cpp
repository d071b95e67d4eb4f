#include "model/async_depth.h"

#include <algorithm>

namespace iolens::model {

std::optional<double> AsyncDepthStats::mean_depth() const {
    if (busy_ns == 0) return std::nullopt;
    return static_cast<double>(request_ns) / static_cast<double>(busy_ns);
}

void AsyncDepth::add(uint64_t start_ns, uint64_t duration_ns) {
    s_.requests++;
    s_.request_ns += duration_ns;
    held_.push_back({start_ns, start_ns + duration_ns});
    if (held_.size() >= kHoldBack) sweep(kHoldBack / 2);
}

void AsyncDepth::sweep(size_t n) {
    n = std::min(n, held_.size());
    const auto by_start = [](const Interval& a, const Interval& b) {
        return a.start != b.start ? a.start < b.start : a.end < b.end;
    };
    const auto mid = held_.begin() + static_cast<std::ptrdiff_t>(n);
    if (n < held_.size()) std::nth_element(held_.begin(), mid, held_.end(), by_start);
    std::sort(held_.begin(), mid, by_start);
    for (auto it = held_.begin(); it != mid; ++it) {
        uint64_t s = it->start;
        const uint64_t e = it->end;
        if (s < swept_to_) {
            s_.clipped++;
            s = swept_to_;
            if (e <= s) continue;
        }
        swept_to_ = s;
        while (!ends_.empty() && ends_.top() <= s) ends_.pop();
        // A request of zero length is in flight for no time: it adds no depth.
        if (e > s) {
            ends_.push(e);
            s_.max_depth = std::max<uint64_t>(s_.max_depth, ends_.size());
        }
        if (open_ && s <= open_e_) {
            open_e_ = std::max(open_e_, e);
        } else {
            if (open_) s_.busy_ns += open_e_ - open_s_;
            open_ = true, open_s_ = s, open_e_ = e;
        }
    }
    held_.erase(held_.begin(), mid);
}

AsyncDepthStats AsyncDepth::stats() const {
    AsyncDepth copy = *this;
    copy.sweep(copy.held_.size());
    AsyncDepthStats out = copy.s_;
    if (copy.open_) out.busy_ns += copy.open_e_ - copy.open_s_;
    return out;
}

}  // namespace iolens::model
