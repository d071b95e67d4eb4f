#pragma once
// A log2 histogram of non-negative integer samples (nanoseconds, bytes).
//
// Rendering and JSON use the BCC-style power-of-two buckets: bucket i holds
// values in [2^i, 2^(i+1)), except bucket 0 which holds [0, 2). Percentiles come
// from a finer layer of 16 linear sub-buckets per power of two (each 1/16 =
// 6.25% of its power of two wide; values below 16 are exact). A percentile is
// the midpoint of its sub-bucket, clamped to the exact min and max, so it is
// within 3.125% of the true sample value, even when every sample falls in one
// power-of-two bucket.
//
// Storage is only the fine layer (the power-of-two counts are derived from
// it), sparse while a histogram is small: the builder keeps 18 histograms per
// file, and a training job can touch millions of files, so an empty histogram
// must cost 64 bytes and no heap. A histogram that has taken kDenseAfter
// samples turns dense on its next new sub-bucket, or, once it has
// kDenseWidth sub-buckets, on its next add outside the last add's one (a
// latency histogram of dozens of sub-buckets, all seen, was searched on most
// adds: 7% of a 200,000-file report's time): every fine index present
// (16.6 KB), so that an add is one increment instead of a search and an
// insert. Those are the hot ones (the totals, a process's or an epoch's
// reads: `report` adds 6 to 10 samples per call); at most one histogram in
// kDenseAfter samples can turn dense, which bounds the memory it costs.
#include <bit>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace iolens::model {

class Histogram {
public:
    static constexpr int kBuckets = 64;

    struct Bucket {
        uint64_t lo;  // inclusive
        uint64_t hi;  // exclusive (UINT64_MAX for the last bucket)
        uint64_t count;
    };

    // Inline: the dense case is a few instructions, and `report` makes
    // several adds per call it reads.
    void add(uint64_t value, uint64_t count = 1) {
        if (count == 0) return;
        count_ += count;
        uint64_t total;
        sum_ = __builtin_add_overflow(sum_, count == 1 ? value : scaled(value, count), &total) ? UINT64_MAX
                                                                                               : total;
        min_ = value < min_ ? value : min_;
        max_ = value > max_ ? value : max_;
        const uint32_t f = fine_index(value);
        if (dense())
            fine_[f].second += count;
        else
            add_sparse(f, count);
    }
    void merge(const Histogram& other);

    uint64_t count() const { return count_; }
    uint64_t sum() const { return sum_; }
    uint64_t min() const { return count_ ? min_ : 0; }
    uint64_t max() const { return max_; }
    // The value below which a fraction q (0..1) of the samples fall; 0 if empty.
    uint64_t percentile(double q) const;
    // The sum of the n smallest samples, each taken at its sub-bucket's
    // midpoint (clamped to min and max): within 3.125% of the true sum.
    uint64_t sum_of_smallest(uint64_t n) const;

    // Non-empty power-of-two buckets, ascending; with fill_gaps, the empty
    // buckets between the first and the last non-empty one are included too
    // (as a BCC histogram prints them).
    std::vector<Bucket> buckets(bool fill_gaps = false) const;
    uint64_t bucket_count(int index) const;  // count in power-of-two bucket index

    static int bucket_index(uint64_t value);  // 0..63
    static uint64_t bucket_lo(int index);
    static uint64_t bucket_hi(int index);

    bool operator==(const Histogram& o) const;

    // Everything a histogram holds, for a file that stores it (a report
    // partial, model/report_codec.h): the non-zero fine counts ascending by
    // index, the sample count, sum, min and max.
    struct State {
        std::vector<std::pair<uint32_t, uint64_t>> fine;
        uint64_t count = 0;
        uint64_t sum = 0;
        uint64_t min = 0;
        uint64_t max = 0;
    };
    State state() const;
    // The histogram of a state, or nothing when the state is not one a
    // histogram can have (an index out of range or out of order, counts that
    // do not add up to count, min above max).
    static std::optional<Histogram> from_state(State state);

    // The fine layer, exposed for tests and for renderers that want more
    // resolution: fine index = bit_width(value) * 16 + sub-bucket.
    static uint32_t fine_index(uint64_t value) {
        const int bw = std::bit_width(value);
        if (bw <= kSubBits)
            return static_cast<uint32_t>(bw) * kSub +
                   static_cast<uint32_t>(bw ? value - (uint64_t{1} << (bw - 1)) : 0);
        const uint64_t sub = (value >> (bw - 1 - kSubBits)) - kSub;
        return static_cast<uint32_t>(bw) * kSub + static_cast<uint32_t>(sub);
    }
    static uint64_t fine_lo(uint32_t index);
    static uint64_t fine_width(uint32_t index);
    static constexpr uint32_t kFine = 65 * 16;  // fine indices: bit widths 0..64, 16 each
    static constexpr uint64_t kDenseAfter = 16384;
    static constexpr size_t kDenseWidth = 32;

private:
    static constexpr int kSubBits = 4;  // 16 sub-buckets per power of two
    static constexpr uint32_t kSub = 1u << kSubBits;
    bool dense() const { return fine_.size() == kFine; }
    void make_dense();
    void add_sparse(uint32_t fine, uint64_t count);
    static uint64_t scaled(uint64_t value, uint64_t count) {  // saturating value * count
        uint64_t r;
        return __builtin_mul_overflow(value, count, &r) ? UINT64_MAX : r;
    }
    void merge_sparse(const Histogram& other);

    // (fine index, count), sorted by fine index. Dense: all kFine of them, so
    // that fine_[i].first == i (zero counts included).
    std::vector<std::pair<uint32_t, uint64_t>> fine_;
    uint64_t count_ = 0;
    uint64_t sum_ = 0;  // saturates at UINT64_MAX
    uint64_t min_ = UINT64_MAX;
    uint64_t max_ = 0;
    // Position in fine_ of the last add: consecutive samples usually land in
    // the same sub-bucket, which then costs no search.
    uint32_t hint_ = 0;
};

}  // namespace iolens::model
