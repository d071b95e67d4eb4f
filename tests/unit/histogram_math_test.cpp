// Histogram math: bucket edges, the fine layer, percentiles, merge.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "model/histogram.h"

using iolens::model::Histogram;

namespace {

// The exact nearest-rank percentile of a sample, for comparison.
uint64_t exact_percentile(std::vector<uint64_t> v, double q) {
    std::sort(v.begin(), v.end());
    size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
    rank = std::clamp<size_t>(rank, 1, v.size());
    return v[rank - 1];
}

void expect_close(uint64_t got, uint64_t want, const char* what) {
    const double err = std::abs(static_cast<double>(got) - static_cast<double>(want));
    EXPECT_LE(err, 0.0625 * static_cast<double>(want)) << what << ": got " << got << " want " << want;
}

void check_percentiles(const std::vector<uint64_t>& values, const char* what) {
    Histogram h;
    for (auto v : values) h.add(v);
    for (double q : {0.01, 0.25, 0.5, 0.9, 0.99, 0.999})
        expect_close(h.percentile(q), exact_percentile(values, q), what);
}

}  // namespace

TEST(HistogramBuckets, EdgesFollowBccLog2) {
    EXPECT_EQ(Histogram::bucket_index(0), 0);
    EXPECT_EQ(Histogram::bucket_index(1), 0);
    EXPECT_EQ(Histogram::bucket_index(2), 1);
    EXPECT_EQ(Histogram::bucket_index(3), 1);
    EXPECT_EQ(Histogram::bucket_index(4), 2);
    EXPECT_EQ(Histogram::bucket_index(7), 2);
    EXPECT_EQ(Histogram::bucket_index(8), 3);
    EXPECT_EQ(Histogram::bucket_index(UINT64_MAX), 63);
    EXPECT_EQ(Histogram::bucket_index(uint64_t{1} << 63), 63);

    EXPECT_EQ(Histogram::bucket_lo(0), 0u);
    EXPECT_EQ(Histogram::bucket_hi(0), 2u);
    EXPECT_EQ(Histogram::bucket_lo(1), 2u);
    EXPECT_EQ(Histogram::bucket_hi(1), 4u);
    EXPECT_EQ(Histogram::bucket_lo(3), 8u);
    EXPECT_EQ(Histogram::bucket_hi(3), 16u);
    EXPECT_EQ(Histogram::bucket_lo(63), uint64_t{1} << 63);
    EXPECT_EQ(Histogram::bucket_hi(63), UINT64_MAX);
}

TEST(HistogramBuckets, EveryValueLiesInItsBucket) {
    for (uint64_t v : std::initializer_list<uint64_t>{0, 1, 2, 3, 4, 7, 8, 1000, 4095, 4096, (1ull << 40) - 1,
                                                      1ull << 62, UINT64_MAX - 1}) {
        const int i = Histogram::bucket_index(v);
        EXPECT_GE(v, Histogram::bucket_lo(i)) << v;
        EXPECT_LT(v, Histogram::bucket_hi(i)) << v;
    }
}

TEST(HistogramBuckets, BucketsListsNonEmptyAndFillsGaps) {
    Histogram h;
    for (uint64_t v : {0, 1, 2, 3, 4, 7, 8}) h.add(v);
    h.add(100, 5);
    const auto b = h.buckets();
    ASSERT_EQ(b.size(), 5u);
    EXPECT_EQ(b[0].lo, 0u);
    EXPECT_EQ(b[0].hi, 2u);
    EXPECT_EQ(b[0].count, 2u);
    EXPECT_EQ(b[1].lo, 2u);
    EXPECT_EQ(b[1].hi, 4u);
    EXPECT_EQ(b[1].count, 2u);
    EXPECT_EQ(b[2].lo, 4u);
    EXPECT_EQ(b[2].hi, 8u);
    EXPECT_EQ(b[2].count, 2u);
    EXPECT_EQ(b[3].lo, 8u);
    EXPECT_EQ(b[3].hi, 16u);
    EXPECT_EQ(b[3].count, 1u);
    EXPECT_EQ(b[4].lo, 64u);
    EXPECT_EQ(b[4].hi, 128u);
    EXPECT_EQ(b[4].count, 5u);

    const auto filled = h.buckets(/*fill_gaps=*/true);
    ASSERT_EQ(filled.size(), 7u);  // 16..31 and 32..63 are empty but shown
    EXPECT_EQ(filled[4].lo, 16u);
    EXPECT_EQ(filled[4].count, 0u);
    EXPECT_EQ(filled[5].lo, 32u);
    EXPECT_EQ(filled[6].count, 5u);
    EXPECT_EQ(h.bucket_count(0), 2u);
    EXPECT_EQ(h.bucket_count(6), 5u);
    EXPECT_EQ(h.bucket_count(5), 0u);
}

TEST(HistogramBuckets, MaxValueIsCountedInTheLastBucket) {
    Histogram h;
    h.add(UINT64_MAX);
    h.add(UINT64_MAX);
    const auto b = h.buckets();
    ASSERT_EQ(b.size(), 1u);
    EXPECT_EQ(b[0].lo, uint64_t{1} << 63);
    EXPECT_EQ(b[0].hi, UINT64_MAX);
    EXPECT_EQ(h.max(), UINT64_MAX);
    EXPECT_EQ(h.sum(), UINT64_MAX);  // saturates rather than wrapping
    EXPECT_EQ(h.percentile(0.5), UINT64_MAX);
}

TEST(HistogramFine, SubBucketsAreAtMostOneSixteenthWide) {
    std::mt19937_64 rng(7);
    for (int i = 0; i < 20000; ++i) {
        const uint64_t v = rng() >> (rng() % 64);
        const uint32_t f = Histogram::fine_index(v);
        const uint64_t lo = Histogram::fine_lo(f), w = Histogram::fine_width(f);
        ASSERT_LE(lo, v) << v;
        ASSERT_LE(v - lo, w - 1) << v;
        if (v >= 16)
            ASSERT_LE(w * 16, lo) << v;
        else
            ASSERT_EQ(w, 1u) << v;  // small values are exact
    }
    EXPECT_LT(Histogram::fine_index(0), Histogram::fine_index(1));
    EXPECT_LT(Histogram::fine_index(UINT64_MAX - 1), 65u * 16);
}

TEST(HistogramPercentile, EmptyIsZero) {
    Histogram h;
    EXPECT_EQ(h.count(), 0u);
    EXPECT_EQ(h.sum(), 0u);
    EXPECT_EQ(h.min(), 0u);
    EXPECT_EQ(h.max(), 0u);
    EXPECT_EQ(h.percentile(0.5), 0u);
    EXPECT_EQ(h.percentile(0.99), 0u);
    EXPECT_TRUE(h.buckets().empty());
    EXPECT_TRUE(h.buckets(true).empty());
}

TEST(HistogramPercentile, SingleValueIsExact) {
    Histogram h;
    h.add(1000, 42);
    EXPECT_EQ(h.percentile(0.5), 1000u);
    EXPECT_EQ(h.percentile(0.99), 1000u);
    EXPECT_EQ(h.min(), 1000u);
    EXPECT_EQ(h.sum(), 42000u);
}

TEST(HistogramPercentile, NeverOutsideTheObservedRangeAfterMerges) {
    // Reads all exactly 65,536 bytes: p99 is 65,536 (it printed 67,584, the
    // sub-bucket's midpoint), also when the histogram is a merge of others
    // (per process into totals, sparse into dense).
    Histogram a, b, total;
    for (int i = 0; i < 5000; ++i) a.add(65536);
    b.add(65536, 3);
    total.merge(a);
    total.merge(b);
    for (const Histogram* h : {&a, &b, &total})
        for (double q : {0.01, 0.5, 0.9, 0.99, 0.999}) EXPECT_EQ(h->percentile(q), 65536u) << q;
}

TEST(HistogramPercentile, SmallValuesAreExact) {
    Histogram h;
    for (uint64_t v = 0; v < 16; ++v) h.add(v);
    EXPECT_EQ(h.percentile(0.5), 7u);  // rank 8 of 0..15
    EXPECT_EQ(h.percentile(1.0), 15u);
    EXPECT_EQ(h.percentile(0.0), 0u);
}

TEST(HistogramPercentile, UniformWithinPrecision) {
    std::vector<uint64_t> v;
    for (uint64_t i = 1; i <= 100000; ++i) v.push_back(i);
    check_percentiles(v, "uniform 1..100000");
}

TEST(HistogramPercentile, InsideOnePowerOfTwo) {
    // All samples in [1024, 2048): the log2 buckets alone could not tell p50 from p99.
    std::vector<uint64_t> v;
    for (uint64_t i = 1024; i < 2048; ++i) v.push_back(i);
    check_percentiles(v, "one bucket");
    Histogram h;
    for (auto x : v) h.add(x);
    EXPECT_LT(h.percentile(0.5), h.percentile(0.99));
}

TEST(HistogramPercentile, LogNormalLatencies) {
    std::mt19937_64 rng(42);
    std::lognormal_distribution<double> d(9.0, 1.5);  // ~8 us median, long tail
    std::vector<uint64_t> v;
    for (int i = 0; i < 200000; ++i) v.push_back(static_cast<uint64_t>(d(rng)));
    check_percentiles(v, "lognormal");
}

TEST(HistogramPercentile, Bimodal) {
    // Page-cache hits and disk reads: the p99 must land in the slow mode.
    std::vector<uint64_t> v;
    for (int i = 0; i < 9800; ++i) v.push_back(400 + i % 50);
    for (int i = 0; i < 200; ++i) v.push_back(2000000 + i * 1000);
    check_percentiles(v, "bimodal");
}

TEST(HistogramMerge, EqualsAddingEverythingToOne) {
    Histogram a, b, all;
    std::mt19937_64 rng(3);
    for (int i = 0; i < 5000; ++i) {
        const uint64_t x = rng() % 1000000, y = rng() % 3000;
        a.add(x);
        b.add(y);
        all.add(x);
        all.add(y);
    }
    Histogram m = a;
    m.merge(b);
    EXPECT_EQ(m, all);
    EXPECT_EQ(m.count(), 10000u);
    EXPECT_EQ(m.percentile(0.5), all.percentile(0.5));
    // Adding after a merge still works.
    m.add(5);
    all.add(5);
    EXPECT_EQ(m, all);
}

TEST(HistogramMerge, WithEmpty) {
    Histogram a, empty;
    a.add(10);
    a.add(20);
    Histogram m = a;
    m.merge(empty);
    EXPECT_EQ(m, a);
    Histogram e;
    e.merge(a);
    EXPECT_EQ(e, a);
    EXPECT_EQ(e.min(), 10u);
    EXPECT_EQ(e.max(), 20u);
    Histogram ee;
    ee.merge(empty);
    EXPECT_EQ(ee, empty);
}

TEST(HistogramAdd, CountArgumentAndZeroCount) {
    Histogram a, b;
    a.add(300, 3);
    b.add(300);
    b.add(300);
    b.add(300);
    EXPECT_EQ(a, b);
    a.add(7, 0);  // nothing
    EXPECT_EQ(a, b);
}

// A histogram that turned dense (kDenseAfter samples) reports exactly what a
// sparse one with the same samples does, and merges either way round.
TEST(HistogramDense, SameAnswersAsSparse) {
    std::mt19937_64 rng(11);
    std::vector<uint64_t> values;
    for (uint64_t i = 0; i < 3 * Histogram::kDenseAfter; ++i) values.push_back(rng() >> (rng() % 64));
    values.push_back(0);
    values.push_back(UINT64_MAX);
    Histogram big;  // turns dense
    for (auto v : values) big.add(v);
    // The same samples in pieces small enough to stay sparse, merged.
    std::vector<Histogram> parts(values.size() / (Histogram::kDenseAfter / 2) + 1);
    for (size_t i = 0; i < values.size(); ++i) parts[i % parts.size()].add(values[i]);
    Histogram merged;
    for (const auto& p : parts) merged.merge(p);
    for (const Histogram* h : {&big, &merged}) {
        EXPECT_EQ(h->count(), values.size());
        EXPECT_EQ(h->min(), 0u);
        EXPECT_EQ(h->max(), UINT64_MAX);
    }
    EXPECT_TRUE(big == merged);
    EXPECT_TRUE(merged == big);
    for (bool gaps : {false, true}) {
        const auto a = big.buckets(gaps), b = merged.buckets(gaps);
        ASSERT_EQ(a.size(), b.size());
        for (size_t i = 0; i < a.size(); ++i) {
            EXPECT_EQ(a[i].lo, b[i].lo);
            EXPECT_EQ(a[i].count, b[i].count);
            EXPECT_TRUE(gaps || a[i].count > 0);
        }
    }
    for (int i = 0; i < Histogram::kBuckets; ++i) EXPECT_EQ(big.bucket_count(i), merged.bucket_count(i));
    for (double q : {0.001, 0.25, 0.5, 0.99, 0.999}) EXPECT_EQ(big.percentile(q), merged.percentile(q));

    // Sparse into dense, dense into sparse and into empty: all the same.
    Histogram small;
    small.add(5);
    small.add(1u << 20);
    Histogram a = big, b = small, c;
    a.merge(small);
    b.merge(big);
    c.merge(a);
    EXPECT_TRUE(a == b);
    EXPECT_TRUE(c == a);
    EXPECT_EQ(a.count(), values.size() + 2);
    EXPECT_FALSE(a == big);
}
