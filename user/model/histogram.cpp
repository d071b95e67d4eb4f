#include "model/histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace iolens::model {

namespace {

constexpr int kSubBits = 4;  // Histogram::kSubBits
constexpr uint32_t kSub = 1u << kSubBits;

uint64_t sat_add(uint64_t a, uint64_t b) {
    uint64_t r;
    return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

// The power-of-two bucket a fine index belongs to. Fine "bit width" 0 (the
// value 0) and 1 (the value 1) both fall in bucket 0 = [0, 2).
int fine_to_bucket(uint32_t fine) {
    const int bw = static_cast<int>(fine / kSub);
    return bw <= 1 ? 0 : bw - 1;
}

}  // namespace

// Loop-free: bit_width compiles to one lzcnt/bsr. OR-ing in 1 maps 0 and 1 to
// bucket 0 without a branch.
int Histogram::bucket_index(uint64_t value) { return std::bit_width(value | 1) - 1; }

uint64_t Histogram::bucket_lo(int index) { return index <= 0 ? 0 : uint64_t{1} << index; }

uint64_t Histogram::bucket_hi(int index) {
    return index >= kBuckets - 1 ? UINT64_MAX : uint64_t{1} << (index + 1);
}

// fine index = bit_width(value) * 16 + sub-bucket (fine_index, inline in the
// header). A power of two 2^L with L >= 4 splits into 16 equal sub-buckets of
// width 2^(L-4); below 16 every value has a sub-bucket of its own (so small
// values are exact).
uint64_t Histogram::fine_lo(uint32_t index) {
    const int bw = static_cast<int>(index / kSub);
    const uint64_t sub = index % kSub;
    if (bw == 0) return 0;
    const int l = bw - 1;
    if (l < kSubBits) return (uint64_t{1} << l) + sub;
    return (uint64_t{1} << l) + (sub << (l - kSubBits));
}

uint64_t Histogram::fine_width(uint32_t index) {
    const int bw = static_cast<int>(index / kSub);
    const int l = bw - 1;
    return l < kSubBits ? 1 : uint64_t{1} << (l - kSubBits);
}

void Histogram::add_sparse(uint32_t f, uint64_t count) {
    if (hint_ < fine_.size() && fine_[hint_].first == f) {
        fine_[hint_].second += count;
        return;
    }
    if (count_ >= kDenseAfter && fine_.size() >= kDenseWidth) {  // hot and wide: no more searches
        make_dense();
        fine_[f].second += count;
        return;
    }
    auto it = std::lower_bound(fine_.begin(), fine_.end(), f,
                               [](const auto& e, uint32_t key) { return e.first < key; });
    if (it != fine_.end() && it->first == f) {
        it->second += count;
    } else if (count_ >= kDenseAfter) {
        make_dense();
        fine_[f].second += count;
        return;
    } else {
        it = fine_.insert(it, {f, count});
    }
    hint_ = static_cast<uint32_t>(it - fine_.begin());
}

void Histogram::make_dense() {
    std::vector<std::pair<uint32_t, uint64_t>> all(kFine);
    for (uint32_t i = 0; i < kFine; ++i) all[i].first = i;
    for (const auto& [idx, c] : fine_) all[idx].second = c;
    fine_ = std::move(all);
}

void Histogram::merge(const Histogram& other) {
    if (other.count_ == 0) return;
    if (!dense() && other.dense()) make_dense();
    if (dense()) {
        for (const auto& [idx, c] : other.fine_) fine_[idx].second += c;
    } else {
        merge_sparse(other);
    }
    count_ += other.count_;
    sum_ = sat_add(sum_, other.sum_);
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
}

// Both sparse: the union of the two sorted lists (dense when it has them all).
void Histogram::merge_sparse(const Histogram& other) {
    std::vector<std::pair<uint32_t, uint64_t>> out;
    out.reserve(fine_.size() + other.fine_.size());
    auto a = fine_.cbegin();
    auto b = other.fine_.cbegin();
    while (a != fine_.cend() || b != other.fine_.cend()) {
        if (b == other.fine_.cend() || (a != fine_.cend() && a->first < b->first)) {
            out.push_back(*a++);
        } else if (a == fine_.cend() || b->first < a->first) {
            out.push_back(*b++);
        } else {
            out.emplace_back(a->first, a->second + b->second);
            ++a, ++b;
        }
    }
    fine_ = std::move(out);
    hint_ = 0;
}

// Nearest rank: the smallest sub-bucket holding the ceil(q * count)-th sample,
// reported as its midpoint and clamped to the exact extremes.
uint64_t Histogram::percentile(double q) const {
    if (count_ == 0) return 0;
    if (!(q > 0)) return min_;  // also catches NaN
    if (q >= 1) return max_;
    uint64_t rank = static_cast<uint64_t>(std::ceil(q * static_cast<double>(count_)));
    rank = std::clamp<uint64_t>(rank, 1, count_);
    uint64_t seen = 0;
    for (const auto& [idx, n] : fine_) {
        seen += n;
        if (seen >= rank) {
            const uint64_t mid = fine_lo(idx) + fine_width(idx) / 2;
            return std::clamp(mid, min_, max_);
        }
    }
    return max_;
}

uint64_t Histogram::sum_of_smallest(uint64_t n) const {
    if (n >= count_) return sum_;
    uint64_t total = 0;
    for (const auto& [idx, c] : fine_) {
        if (n == 0) break;
        const uint64_t take = std::min(n, c);
        const uint64_t mid = std::clamp(fine_lo(idx) + fine_width(idx) / 2, min_, max_);
        total = sat_add(total, scaled(mid, take));
        n -= take;
    }
    return total;
}

uint64_t Histogram::bucket_count(int index) const {
    uint64_t n = 0;
    for (const auto& [idx, c] : fine_)
        if (fine_to_bucket(idx) == index) n += c;
    return n;
}

std::vector<Histogram::Bucket> Histogram::buckets(bool fill_gaps) const {
    std::vector<Bucket> out;
    for (const auto& [idx, c] : fine_) {
        if (c == 0) continue;  // a dense histogram's empty sub-buckets
        const int b = fine_to_bucket(idx);
        if (!out.empty() && out.back().lo == bucket_lo(b)) {
            out.back().count += c;
            continue;
        }
        if (fill_gaps && !out.empty()) {
            for (int g = bucket_index(out.back().lo) + 1; g < b; ++g)
                out.push_back({bucket_lo(g), bucket_hi(g), 0});
        }
        out.push_back({bucket_lo(b), bucket_hi(b), c});
    }
    return out;
}

// Equal counts, whichever of the two has turned dense.
bool Histogram::operator==(const Histogram& o) const {
    if (count_ != o.count_ || sum_ != o.sum_ || min() != o.min() || max_ != o.max_) return false;
    auto a = fine_.begin(), b = o.fine_.begin();
    for (;;) {
        while (a != fine_.end() && a->second == 0) ++a;
        while (b != o.fine_.end() && b->second == 0) ++b;
        if (a == fine_.end() || b == o.fine_.end()) return a == fine_.end() && b == o.fine_.end();
        if (*a != *b) return false;
        ++a, ++b;
    }
}

Histogram::State Histogram::state() const {
    State s;
    for (const auto& [f, c] : fine_)
        if (c) s.fine.emplace_back(f, c);
    s.count = count_;
    s.sum = sum_;
    s.min = min();
    s.max = max_;
    return s;
}

std::optional<Histogram> Histogram::from_state(State s) {
    Histogram h;
    if (s.count == 0) {
        if (!s.fine.empty() || s.sum || s.min || s.max) return std::nullopt;
        return h;
    }
    uint64_t total = 0;
    for (size_t i = 0; i < s.fine.size(); ++i) {
        const auto [f, c] = s.fine[i];
        if (f >= kFine || c == 0 || (i && f <= s.fine[i - 1].first)) return std::nullopt;
        if (__builtin_add_overflow(total, c, &total)) return std::nullopt;
    }
    if (total != s.count || s.min > s.max) return std::nullopt;
    h.count_ = s.count;
    h.sum_ = s.sum;
    h.min_ = s.min;
    h.max_ = s.max;
    // Sparse, whatever the count: a stored histogram is merged, not added to
    // sample by sample, and most have few sub-buckets.
    h.fine_ = std::move(s.fine);
    return h;
}

}  // namespace iolens::model
