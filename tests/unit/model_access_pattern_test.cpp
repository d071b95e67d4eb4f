// AccessJudge: sequential vs random in start order, whatever order the
// records arrive in (model/access_pattern.h).
#include <gtest/gtest.h>

#include <vector>

#include "model/access_pattern.h"

using namespace iolens::model;

namespace {

struct Access {
    uint32_t tid;
    uint64_t start_ns, offset, end;
};

// Feeds one stream's accesses in the given (arrival) order; returns the
// judgements made plus those still pending, as at the end of a capture.
AccessCounts judge_all(const std::vector<Access>& arrivals) {
    AccessJudge judge;
    AccessStream stream;
    AccessCounts counts;
    for (const auto& a : arrivals) judge.add(stream, counts, a.tid, a.start_ns, a.offset, a.end);
    for (const auto& [to, c] : judge.pending()) {
        EXPECT_EQ(to, &counts);
        counts += c;
    }
    return counts;
}

// T threads reading a file front to back in turn (chunk k by thread k % T,
// started at time k), delivered as each thread's records arrive: in runs of
// `run` per thread (the kernel side's per-thread batches).
std::vector<Access> turns_in_runs(uint64_t chunks, uint32_t threads, uint64_t run) {
    std::vector<std::vector<Access>> per_thread(threads);
    for (uint64_t k = 0; k < chunks; ++k)
        per_thread[k % threads].push_back(
            {static_cast<uint32_t>(1000 + k % threads), k, k * 4096, (k + 1) * 4096});
    std::vector<Access> out;
    for (size_t from = 0; out.size() < chunks; from += run)
        for (const auto& t : per_thread)
            for (size_t i = from; i < std::min(from + run, t.size()); ++i) out.push_back(t[i]);
    return out;
}

}  // namespace

TEST(AccessPattern, OneThreadInOrderIsJudgedAsItComes) {
    AccessJudge judge;
    AccessStream stream;
    AccessCounts counts;
    judge.add(stream, counts, 7, 1, 0, 4096);     // first, at 0: sequential
    judge.add(stream, counts, 7, 2, 4096, 8192);  // sequential
    judge.add(stream, counts, 7, 3, 100, 200);    // went back: random
    EXPECT_EQ(counts.sequential, 2u);
    EXPECT_EQ(counts.random, 1u);
    EXPECT_TRUE(judge.pending().empty());  // one thread: nothing waits
}

// Issue #19: reading a file again from 0 after reopening it (num_workers=0,
// or persistent workers at each epoch) made every pass's first read random:
// a third of the reads of a job reading 3-chunk samples. Now a pass from 0
// is a new stream.
TEST(AccessPattern, ARereadFromOffsetZeroStartsANewStreamNotARandomAccess) {
    AccessJudge judge;
    AccessStream stream;
    AccessCounts counts;
    uint64_t t = 0;
    for (int pass = 0; pass < 10; ++pass)
        for (uint64_t k = 0; k < 3; ++k) judge.add(stream, counts, 7, ++t, k * 4096, (k + 1) * 4096);
    EXPECT_EQ(counts.sequential, 30u);  // was 21 sequential, 9 random
    EXPECT_EQ(counts.random, 0u);
    judge.add(stream, counts, 7, ++t, 8192, 12288);  // a jump back, not to 0: still random
    EXPECT_EQ(counts.random, 1u);
}

TEST(AccessPattern, ThreadsTakingTurnsAreSequentialThoughTheirRecordsArriveInRuns) {
    for (uint32_t threads : {2u, 3u, 8u}) {
        const auto counts = judge_all(turns_in_runs(1024, threads, 14));
        EXPECT_EQ(counts.sequential, 1024u) << threads << " threads";
        EXPECT_EQ(counts.random, 0u) << threads << " threads";
    }
}

TEST(AccessPattern, TheFirstThreadsJudgementsAreTakenBackWhenASecondThreadShowsUp) {
    // Thread 1's first run is judged at once (0 sequential, 2 and 4 random
    // against it alone); thread 2's first access started before them.
    const auto counts = judge_all(
        {{1, 0, 0, 10}, {1, 2, 20, 30}, {1, 4, 40, 50}, {2, 1, 10, 20}, {2, 3, 30, 40}, {2, 5, 50, 60}});
    EXPECT_EQ(counts.sequential, 6u);
    EXPECT_EQ(counts.random, 0u);
}

TEST(AccessPattern, RandomAccessesOfSeveralThreadsStayRandom) {
    // Two threads, each reading chunks no access ends at.
    std::vector<Access> a;
    for (uint64_t k = 0; k < 200; ++k)
        a.push_back({static_cast<uint32_t>(1 + k % 2), k, (k * 7919 % 1000 + 1) * 8192,
                     (k * 7919 % 1000 + 1) * 8192 + 4096});
    const auto counts = judge_all(a);
    EXPECT_EQ(counts.sequential, 0u);
    EXPECT_EQ(counts.random, 200u);
}

TEST(AccessPattern, AccessesLaterThanTheWindowAreStillCountedOnce) {
    // Thread 2's records arrive after far more of thread 1's than the window
    // holds: the order is lost for them, but every access is counted once.
    const uint64_t n = 10 * AccessJudge::kPerThread * 2 + AccessJudge::kRecent;
    const auto counts = judge_all(turns_in_runs(n, 2, n));
    EXPECT_EQ(counts.sequential + counts.random, n);
}

TEST(AccessPattern, AStreamOfManyThreadsKeepsItsWindowBounded) {
    // More threads than counted: the window stops growing at kMaxThreads, and
    // turns still come out right when each thread's run is short.
    const uint32_t threads = AccessJudge::kMaxThreads + 16;
    const auto counts = judge_all(turns_in_runs(threads * 20, threads, 1));
    EXPECT_EQ(counts.sequential, uint64_t{threads} * 20);
    EXPECT_EQ(counts.random, 0u);
}

TEST(AccessPattern, WindowsAreEmptiedWhenTheyHoldTooMuchAndEveryAccessCountsOnce) {
    // Many streams, each read by two threads in turn (16 accesses each,
    // arriving in runs of 14): their windows together pass kMaxPending and
    // are judged and emptied, three times.
    AccessJudge judge;
    const size_t streams = AccessJudge::kMaxPending / 32 * 3;  // three drains' worth
    std::vector<AccessStream> stream(streams);
    std::vector<AccessCounts> counts(streams);
    for (size_t i = 0; i < streams; ++i)
        for (const auto& a : turns_in_runs(32, 2, 14))
            judge.add(stream[i], counts[i], a.tid, a.start_ns, a.offset, a.end);
    for (const auto& [to, c] : judge.pending()) {
        const size_t i = static_cast<size_t>(to - counts.data());
        ASSERT_LT(i, streams);
        counts[i] += c;
    }
    // Every access counted once; the order is lost only in the stream a
    // drain cut through (at most one per drain).
    size_t cut = 0;
    for (size_t i = 0; i < streams; ++i) {
        ASSERT_EQ(counts[i].sequential + counts[i].random, 32u) << "stream " << i;
        cut += counts[i].random != 0;
    }
    EXPECT_LE(cut, 3u);
    EXPECT_LE(judge.pending().size(),
              AccessJudge::kMaxPending / 32 + 1);  // only what came after the last drain
}
