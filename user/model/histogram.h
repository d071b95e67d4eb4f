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
// Storage is only the sparse fine layer (the power-of-two counts are derived
// from it): the builder keeps 18 histograms per file, and a training job can
// touch millions of files, so an empty histogram must cost 64 bytes and no heap.
#include <cstdint>
#include <utility>
#include <vector>

namespace iolens::model {

class Histogram {
public:
    static constexpr int kBuckets = 64;

    struct Bucket {
        uint64_t lo;    // inclusive
        uint64_t hi;    // exclusive (UINT64_MAX for the last bucket)
        uint64_t count;
    };

    void add(uint64_t value, uint64_t count = 1);
    void merge(const Histogram& other);

    uint64_t count() const { return count_; }
    uint64_t sum() const { return sum_; }
    uint64_t min() const { return count_ ? min_ : 0; }
    uint64_t max() const { return max_; }
    // The value below which a fraction q (0..1) of the samples fall; 0 if empty.
    uint64_t percentile(double q) const;

    // Non-empty power-of-two buckets, ascending; with fill_gaps, the empty
    // buckets between the first and the last non-empty one are included too
    // (as a BCC histogram prints them).
    std::vector<Bucket> buckets(bool fill_gaps = false) const;
    uint64_t bucket_count(int index) const;  // count in power-of-two bucket index

    static int bucket_index(uint64_t value);      // 0..63
    static uint64_t bucket_lo(int index);
    static uint64_t bucket_hi(int index);

    bool operator==(const Histogram& o) const;

    // The fine layer, exposed for tests and for renderers that want more
    // resolution: fine index = bit_width(value) * 16 + sub-bucket.
    static uint32_t fine_index(uint64_t value);
    static uint64_t fine_lo(uint32_t index);
    static uint64_t fine_width(uint32_t index);

private:
    // (fine index, count), sorted by fine index.
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
