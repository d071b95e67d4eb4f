// Epochs from markers and inferred from the dataset re-read cycle, and the
// per-epoch (and per-rank within) figures.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "model/epochs.h"
#include "model_rank_records.h"

using namespace iolens;
using namespace iolens::model;
using test::DlStream;
using test::kMs;

namespace {

const std::map<uint32_t, std::map<std::string, std::string>> kTwoRanks = {{100, {{"RANK", "0"}}},
                                                                          {200, {{"RANK", "1"}}}};

TEST(EpochMarkers, MultiRankStepsAndEnd) {
    DlStream s;
    s.fork(100, 1, 1 * kMs).fork(200, 1, 1 * kMs);
    // Rank 1 marks each epoch a little later than rank 0: the earliest wins.
    s.marker(200, 11 * kMs, "epoch/0").marker(100, 10 * kMs, "epoch/0");
    for (int st = 0; st < 3; ++st)  // both ranks mark the same 3 steps: 3, not 6
        s.marker(100, (12 + st) * kMs, "step/" + std::to_string(st))
            .marker(200, (12 + st) * kMs, "step/" + std::to_string(st));
    s.marker(100, 40 * kMs, "epoch/1").marker(200, 41 * kMs, "epoch/1");
    s.marker(100, 45 * kMs, "step/3");
    s.marker(200, 70 * kMs, "end").marker(100, 71 * kMs, "end");
    s.marker(100, 72 * kMs, "bogus");
    // Reads: two in epoch 0 (one per rank), one in epoch 1, one before, one after.
    s.call({.pid = 100, .start = 5 * kMs, .ino = 1, .ret = 10});
    s.call({.pid = 100, .start = 20 * kMs, .ino = 1, .ret = 100, .cache_in = 4096});
    s.call({.pid = 200, .start = 21 * kMs, .ino = 2, .ret = 200});
    s.call({.pid = 200, .start = 50 * kMs, .ino = 2, .ret = 400});
    s.call({.pid = 100, .start = 80 * kMs, .ino = 1, .ret = 800});
    s.pagecache_fault(200, 2, 55 * kMs, 8192);
    s.block(100, 25 * kMs, 4096).block(200, 60 * kMs, 512).block(0, 61 * kMs, 1);
    const auto r = test::build(s, test::dl_capture(100 * kMs, {"pagecache", "block"}), kTwoRanks);
    ASSERT_EQ(r.epochs.size(), 2u);
    const auto& e1 = r.epochs[0];
    EXPECT_EQ(e1.index, 1u);
    EXPECT_EQ(e1.source, EpochSource::Marker);
    EXPECT_EQ(e1.marker_number, 0);
    EXPECT_EQ(e1.start_ns, 10 * kMs);
    EXPECT_EQ(e1.end_ns, 40 * kMs);
    EXPECT_EQ(e1.steps, 3u);
    EXPECT_EQ(e1.ops[IOLENS_OP_READ].calls, 2u);
    EXPECT_EQ(e1.ops[IOLENS_OP_READ].bytes, 300u);
    EXPECT_EQ(e1.page_cache.miss_bytes, 4096u);
    EXPECT_EQ(e1.page_cache.hit_bytes, 200u);
    EXPECT_EQ(e1.block.read_bytes, 4096u);
    ASSERT_EQ(e1.ranks.size(), 2u);
    EXPECT_EQ(e1.ranks[0].ops[IOLENS_OP_READ].bytes, 100u);
    EXPECT_EQ(e1.ranks[1].ops[IOLENS_OP_READ].bytes, 200u);
    EXPECT_EQ(e1.ranks[0].wall_ns, 30 * kMs);
    EXPECT_EQ(e1.ranks[1].io_time_ns, 1000u);
    const auto& e2 = r.epochs[1];
    EXPECT_EQ(e2.start_ns, 40 * kMs);
    EXPECT_EQ(e2.end_ns, 70 * kMs);  // the first "end"
    EXPECT_EQ(e2.steps, 1u);
    EXPECT_EQ(e2.ops[IOLENS_OP_READ].bytes, 400u);
    EXPECT_EQ(e2.ranks[1].page_cache.fault_bytes, 8192u);
    EXPECT_EQ(e2.block.requests, 1u);  // pid 0 is not a tracked process's request
    EXPECT_EQ(e2.ranks[1].block.read_bytes, 512u);
    EXPECT_EQ(e2.ranks[0].ops[IOLENS_OP_READ].calls, 0u);
}

TEST(EpochMarkers, EachRanksEventsGoToItsOwnMarkedEpochs) {
    // Each rank marks its own epochs; rank 1 is slower: it marks epoch/1 at
    // 60 ms, while rank 0 did at 40 ms. Rank 1's reads between 40 and 60 ms
    // are the end of its epoch 0 (merged boundaries moved them into epoch 1),
    // and its own "end" at 95 ms ends its epoch 1, not rank 0's at 80 ms.
    DlStream s;
    s.fork(100, 1, 1 * kMs).fork(200, 1, 1 * kMs);
    s.marker(100, 10 * kMs, "epoch/0").marker(200, 12 * kMs, "epoch/0");
    s.marker(100, 40 * kMs, "epoch/1").marker(200, 60 * kMs, "epoch/1");
    s.marker(100, 80 * kMs, "end").marker(200, 95 * kMs, "end");
    for (uint64_t t = 15; t < 40; t += 5) s.call({.pid = 100, .start = t * kMs, .ino = 1, .ret = 100});
    for (uint64_t t = 45; t < 80; t += 5) s.call({.pid = 100, .start = t * kMs, .ino = 1, .ret = 1000});
    for (uint64_t t = 15; t < 60; t += 5) s.call({.pid = 200, .start = t * kMs, .ino = 2, .ret = 200});
    for (uint64_t t = 65; t < 95; t += 5) s.call({.pid = 200, .start = t * kMs, .ino = 2, .ret = 2000});
    s.call({.pid = 200, .start = 97 * kMs, .ino = 2, .ret = 7});  // after its "end": no epoch
    s.block(200, 50 * kMs, 4096).block(200, 85 * kMs, 512);
    s.pagecache_fault(200, 2, 55 * kMs, 8192);
    const auto r = test::build(s, test::dl_capture(100 * kMs, {"pagecache", "block"}), kTwoRanks);
    ASSERT_EQ(r.epochs.size(), 2u);
    // The epochs themselves are still the merged ones.
    EXPECT_EQ(r.epochs[0].start_ns, 10 * kMs);
    EXPECT_EQ(r.epochs[0].end_ns, 40 * kMs);
    EXPECT_EQ(r.epochs[1].start_ns, 40 * kMs);
    EXPECT_EQ(r.epochs[1].end_ns, 80 * kMs);
    ASSERT_EQ(r.epochs[0].ranks.size(), 2u);
    const auto& r0e0 = r.epochs[0].ranks[0];
    const auto& r1e0 = r.epochs[0].ranks[1];
    const auto& r0e1 = r.epochs[1].ranks[0];
    const auto& r1e1 = r.epochs[1].ranks[1];
    EXPECT_EQ(r0e0.ops[IOLENS_OP_READ].calls, 5u);
    EXPECT_EQ(r0e0.ops[IOLENS_OP_READ].bytes, 500u);
    EXPECT_EQ(r0e1.ops[IOLENS_OP_READ].calls, 7u);
    EXPECT_EQ(r0e1.ops[IOLENS_OP_READ].bytes, 7000u);
    EXPECT_EQ(r1e0.ops[IOLENS_OP_READ].calls, 9u);
    EXPECT_EQ(r1e0.ops[IOLENS_OP_READ].bytes, 9u * 200);
    EXPECT_EQ(r1e1.ops[IOLENS_OP_READ].calls, 6u);
    EXPECT_EQ(r1e1.ops[IOLENS_OP_READ].bytes, 6u * 2000);
    EXPECT_EQ(r1e0.block.read_bytes, 4096u);
    EXPECT_EQ(r1e1.block.read_bytes, 512u);
    EXPECT_EQ(r1e0.page_cache.fault_bytes, 8192u);
    EXPECT_EQ(r1e0.wall_ns, 48 * kMs);  // 12 to 60 ms
    EXPECT_EQ(r1e1.wall_ns, 35 * kMs);  // 60 to 95 ms
    EXPECT_EQ(r0e1.wall_ns, 40 * kMs);
    // The epoch's table is the sum of its ranks'.
    EXPECT_EQ(r.epochs[0].ops[IOLENS_OP_READ].bytes, 500u + 9u * 200);
    EXPECT_EQ(r.epochs[1].ops[IOLENS_OP_READ].bytes, 7000u + 6u * 2000);
}

TEST(EpochMarkers, ARankThatMarksNothingTakesTheMergedWindows) {
    std::vector<EpochWindow> global(2);
    global[0] = {10, 40, 0, 0};
    global[1] = {40, 80, 1, 0};
    const std::vector<MarkerEvent> all = {
        {10, 100, 100, "epoch/0"}, {40, 100, 100, "epoch/1"}, {80, 100, 100, "end"}};
    const auto none = rank_marker_windows(global, {}, all, 100);
    ASSERT_EQ(none.size(), 2u);
    EXPECT_EQ(none[0].end_ns, 40u);
    EXPECT_EQ(none[1].end_ns, 80u);
    // Marking only epoch/1, late: epoch 0 from the merged start to it; the
    // end is every process's "end" (the rank has none of its own).
    const auto late = rank_marker_windows(global, {{60, 200, 200, "epoch/1"}}, all, 100);
    EXPECT_EQ(late[0].start_ns, 10u);
    EXPECT_EQ(late[0].end_ns, 60u);
    EXPECT_EQ(late[1].start_ns, 60u);
    EXPECT_EQ(late[1].end_ns, 80u);
    // No "end" anywhere: the last epoch runs to last_end.
    const auto open = rank_marker_windows(global, {{60, 200, 200, "epoch/1"}}, {}, 100);
    EXPECT_EQ(open[1].end_ns, 100u);
}

TEST(EpochMarkers, LastEpochRunsToCaptureEnd) {
    DlStream s;
    s.fork(100, 1, 1 * kMs);
    s.marker(100, 10 * kMs, "epoch/1").marker(100, 30 * kMs, "epoch/2");
    const auto r = test::build(s, test::dl_capture(100 * kMs));
    ASSERT_EQ(r.epochs.size(), 2u);
    EXPECT_EQ(r.epochs[1].end_ns, 100 * kMs);
    EXPECT_EQ(r.epochs[1].index, 2u);
    EXPECT_EQ(r.epochs[1].marker_number, 2);
}

// One rank (root 100) with 3 workers per epoch reading a shuffled 30-file
// dataset; workers are respawned each epoch. Returns the time of each epoch's
// first data read and each epoch's worker fork.
struct Job {
    DlStream s;
    std::vector<uint64_t> first_read, fork;
};
Job shuffled_job(int epochs, bool respawn_gap, int files = 30) {
    Job j;
    std::mt19937 rng(42);
    j.s.fork(100, 1, 1 * kMs);
    for (int f = 1; f <= files; ++f) j.s.file(f, "/data/train/" + std::to_string(f) + ".jpg");
    j.s.file(500, "/usr/lib/python3/os.py").file(501, "/ckpt/model.pt");
    j.s.file(502, "/home/u/venv/site-packages/torch/__init__.py");
    uint64_t t = 10 * kMs;
    // The checkpoint is read once, in many chunks.
    for (int c = 0; c < 5; ++c)
        j.s.call({.pid = 100, .start = t + c * 1000, .ino = 501, .ret = 4096, .offset = uint64_t(c) * 4096});
    t += 1 * kMs;
    uint32_t next_pid = 1000;
    for (int e = 0; e < epochs; ++e) {
        const uint32_t w0 = next_pid;
        next_pid += 3;
        j.fork.push_back(t);
        for (uint32_t w = w0; w < w0 + 3; ++w) j.s.fork(w, 100, t);
        t += respawn_gap ? 5 * kMs : 0;
        // Every worker imports a module and a library at startup.
        for (uint32_t w = w0; w < w0 + 3; ++w) j.s.load(w, 500, t += 10'000).load(w, 502, t += 10'000);
        std::vector<int> order(files);
        for (int f = 0; f < files; ++f) order[f] = f + 1;
        std::shuffle(order.begin(), order.end(), rng);
        j.first_read.push_back(t + 100'000 + 200);  // the read of the first load
        for (int i = 0; i < files; ++i) {
            t += 100'000;
            j.s.load(w0 + i % 3, order[i], t, 8192);
        }
        t += 1 * kMs;
        for (uint32_t w = w0; w < w0 + 3; ++w) j.s.exit(w, 100, t);
        t += 1 * kMs;
    }
    return j;
}

TEST(EpochInference, ShuffledRereadsAcrossWorkersGiveThreeEpochs) {
    // No respawn signal to snap to: the boundaries are the first re-reads.
    Job j = shuffled_job(3, true);
    const auto r = test::build(j.s, test::dl_capture(1000 * kMs, {"pagecache"}), {{100, {{"RANK", "0"}}}});
    ASSERT_EQ(r.epochs.size(), 3u);
    for (size_t e = 0; e < 3; ++e) {
        EXPECT_EQ(r.epochs[e].source, EpochSource::Inferred);
        EXPECT_EQ(r.epochs[e].index, e + 1);
        // Snapped back to the fork of the epoch's workers (nothing of the
        // previous epoch was read after it).
        EXPECT_EQ(r.epochs[e].start_ns, j.fork[e]) << e;
        EXPECT_EQ(r.epochs[e].ops[IOLENS_OP_READ].calls, 30u + 6u) << e;  // + 2 imports x 3
        EXPECT_EQ(r.epochs[e].ops[IOLENS_OP_READ].bytes, 30u * 8192 + 6u * 4096) << e;
        EXPECT_EQ(r.epochs[e].ranks.at(0).ops[IOLENS_OP_OPEN].calls, 36u) << e;
    }
    EXPECT_EQ(r.epochs[0].end_ns, r.epochs[1].start_ns);
    // The last call on a data file (the last read: start + 1,000 ns) ends the last epoch.
    EXPECT_EQ(r.epochs[2].end_ns, j.first_read[2] + 29 * 100'000 + 1000);
}

TEST(EpochInference, BoundariesAtTheFirstRereadWithoutRespawn) {
    // Persistent workers: the same 3 pids open and read each file every epoch.
    DlStream s;
    std::mt19937 rng(7);
    s.fork(100, 1, 1 * kMs);
    for (uint32_t w = 101; w <= 103; ++w) s.fork(w, 100, 2 * kMs);
    uint64_t t = 10 * kMs;
    std::vector<uint64_t> first;
    for (int e = 0; e < 3; ++e) {
        std::vector<int> order(20);
        for (int f = 0; f < 20; ++f) order[f] = f + 1;
        std::shuffle(order.begin(), order.end(), rng);
        first.push_back(t + 100'000);  // the open of the first load
        for (int i = 0; i < 20; ++i) s.load(101 + i % 3, order[i], t += 100'000);
    }
    const auto r = test::build(s, test::dl_capture(1000 * kMs), {{100, {{"RANK", "0"}}}});
    ASSERT_EQ(r.epochs.size(), 3u);
    // Epoch 1 starts at the fork of its workers (a respawn before any data read).
    EXPECT_EQ(r.epochs[0].start_ns, 2 * kMs);
    EXPECT_EQ(r.epochs[1].start_ns, first[1] + 200);  // the first re-read
    EXPECT_EQ(r.epochs[2].start_ns, first[2] + 200);
    // The opens just before a boundary's read belong to the previous epoch.
    EXPECT_EQ(r.epochs[1].ops[IOLENS_OP_READ].calls, 20u);
}

TEST(EpochInference, WorkerRespawnPlacesTheBoundary) {
    Job j = shuffled_job(2, true);
    const auto r = test::build(j.s, test::dl_capture(1000 * kMs), {{100, {{"RANK", "0"}}}});
    ASSERT_EQ(r.epochs.size(), 2u);
    EXPECT_EQ(r.epochs[1].start_ns, j.fork[1]);
    EXPECT_LT(r.epochs[1].start_ns, j.first_read[1]);
    // The new workers' startup reads (before their first data read) are in epoch 2.
    EXPECT_EQ(r.epochs[1].ops[IOLENS_OP_READ].calls, 36u);
}

TEST(EpochInference, FilesReadOnceMakeNoEpochs) {
    // One pass over the dataset plus a checkpoint and imports: no cycle.
    Job j = shuffled_job(1, false);
    const auto r = test::build(j.s, test::dl_capture(1000 * kMs), {{100, {{"RANK", "0"}}}});
    EXPECT_TRUE(r.epochs.empty());
}

TEST(EpochInference, IncidentalRereadIsNotABoundary) {
    // 40 files read once each, but file 1 is read twice early on (a header
    // probe by a second worker): no epoch.
    DlStream s;
    s.fork(100, 1, 1 * kMs);
    uint64_t t = 10 * kMs;
    s.load(101, 1, t += 100'000).load(102, 1, t += 100'000);
    for (int f = 2; f <= 40; ++f) s.load(101, f, t += 100'000);
    const auto r = test::build(s, test::dl_capture(1000 * kMs), {{100, {{"RANK", "0"}}}});
    EXPECT_TRUE(r.epochs.empty());
}

// One HDF5 file read by 2 DataLoader workers for 3 epochs (each worker opens
// it and reads it in chunks): re-read passes over one file cannot be told
// from concurrent readers. No epochs, and the report says why (it used to
// invent 6 epochs, alternating short and long).
Report shared_file_job(bool respawn) {
    DlStream s;
    s.fork(100, 1, 1 * kMs);
    s.file(7, "/data/train.h5");
    uint64_t t = 10 * kMs;
    uint32_t w = 1000;
    for (int e = 0; e < 3; ++e) {
        if (respawn || e == 0) {
            for (uint32_t k = 0; k < 2; ++k) s.fork(w + k, 100, t);
            t += 1 * kMs;
            for (uint32_t k = 0; k < 2; ++k) s.load(w + k, 7, t += 1000, 65536);
        }
        for (int c = 1; c < 40; ++c)
            for (uint32_t k = 0; k < 2; ++k)
                s.call({.pid = w + k,
                        .start = t += 50'000,
                        .dur = 1000,
                        .ino = 7,
                        .ret = 65536,
                        .offset = uint64_t(c) * 65536});
        if (respawn) {
            t += 1 * kMs;
            for (uint32_t k = 0; k < 2; ++k) s.exit(w + k, 100, t);
            w += 2;
        }
        t += 5 * kMs;
    }
    return test::build(s, test::dl_capture(1000 * kMs), {{100, {{"RANK", "0"}}}});
}

TEST(EpochInference, SharedFileOfSeveralWorkersInventsNoEpochs) {
    for (bool respawn : {true, false}) {
        const Report r = shared_file_job(respawn);
        EXPECT_TRUE(r.epochs.empty()) << "respawn " << respawn << ": " << r.epochs.size() << " epochs";
        if (respawn) {
            EXPECT_NE(r.epochs_note.find("no epochs inferred"), std::string::npos) << r.epochs_note;
        }
    }
}

TEST(EpochInference, TheLastEpochEndsWithTheLastDataRead) {
    // Three epochs over 30 files, then nothing read until the capture ends at
    // 1 s: the last epoch ends when its last data read did, not at 1 s.
    Job j = shuffled_job(3, true);
    const auto r = test::build(j.s, test::dl_capture(1000 * kMs), {{100, {{"RANK", "0"}}}});
    ASSERT_EQ(r.epochs.size(), 3u);
    EXPECT_LT(r.epochs[2].end_ns, 1000 * kMs);
    EXPECT_GT(r.epochs[2].end_ns, j.first_read[2]);
    EXPECT_TRUE(r.epochs_note.empty());
}

TEST(EpochInference, EachRanksEventsGoToItsOwnEpochs) {
    // Two ranks, each reading its own 10 files in order for 3 epochs; rank 1
    // is slower and starts later, so rank 0 begins epoch 2 while rank 1 is
    // still in epoch 1. Rank 1's epoch 1 keeps all of its first pass (merged
    // boundaries moved its last reads into epoch 2).
    DlStream s;
    s.fork(100, 1, 1 * kMs).fork(200, 1, 1 * kMs);
    for (int f = 1; f <= 20; ++f) s.file(f, "/data/part" + std::to_string(f) + ".bin");
    std::vector<uint64_t> rank1_starts;
    for (int r = 0; r < 2; ++r) {
        uint64_t t = 10 * kMs + r * 5 * kMs;
        const uint64_t step = r ? 1 * kMs : 400'000;  // rank 1 is 2.5x slower
        for (int e = 0; e < 3; ++e) {
            if (r) rank1_starts.push_back(t + step + 200);
            for (int f = 1; f <= 10; ++f) s.load(r ? 200 : 100, r * 10 + f, t += step, 8192);
        }
    }
    const auto r =
        test::build(s, test::dl_capture(1000 * kMs), {{100, {{"RANK", "0"}}}, {200, {{"RANK", "1"}}}});
    ASSERT_EQ(r.epochs.size(), 3u);
    ASSERT_EQ(r.epochs[0].ranks.size(), 2u);
    // Rank 0 starts epoch 2 before rank 1 has finished epoch 1.
    EXPECT_LT(r.epochs[1].start_ns, rank1_starts[1]);
    for (size_t e = 0; e < 3; ++e) {
        SCOPED_TRACE(e);
        for (size_t k = 0; k < 2; ++k) {
            EXPECT_EQ(r.epochs[e].ranks[k].ops[IOLENS_OP_READ].calls, 10u) << "rank " << k;
            EXPECT_EQ(r.epochs[e].ranks[k].ops[IOLENS_OP_READ].bytes, 10u * 8192) << "rank " << k;
        }
        // The epoch's table is still the sum of its ranks'.
        EXPECT_EQ(r.epochs[e].ops[IOLENS_OP_READ].calls, 20u);
    }
}

TEST(EpochInference, PathRule) {
    EXPECT_TRUE(data_file_path("/data/train/1.jpg"));
    EXPECT_TRUE(data_file_path(""));
    EXPECT_FALSE(data_file_path("/proc/self/stat"));
    EXPECT_FALSE(data_file_path("/usr/lib/x86_64-linux-gnu/libc.so.6"));
    EXPECT_FALSE(data_file_path("/home/u/venv/lib/python3.11/site-packages/numpy/core/_multiarray.so"));
    EXPECT_FALSE(data_file_path("/home/u/train.py"));
}

}  // namespace

// issue #12: what a recording may ask of the report is bounded.
TEST(EpochLimits, MoreEpochsThanTheLimitKeepTheFirstAndSaySo) {
    DlStream s;
    const size_t n = kMaxEpochs + 904;
    for (size_t e = 0; e < n; ++e) s.marker(100, 1000 + e * 10, "epoch/" + std::to_string(e));
    s.call({.pid = 100, .start = 1000 + (n - 1) * 10 + 1, .ino = 5, .ret = 4096});  // in a dropped epoch
    const auto r = test::build(s, test::dl_capture(1000 + n * 10 + 100));
    ASSERT_EQ(r.epochs.size(), kMaxEpochs);
    EXPECT_EQ(r.epochs.back().marker_number, static_cast<int64_t>(kMaxEpochs - 1));
    EXPECT_EQ(r.epochs.back().end_ns, 1000 + kMaxEpochs * 10);  // where the next (dropped) one began
    ASSERT_EQ(r.limits.size(), 1u);
    EXPECT_NE(r.limits[0].find(std::to_string(n) + " epochs"), std::string::npos) << r.limits[0];
    EXPECT_EQ(r.totals[IOLENS_OP_READ].calls, 1u);  // still counted in the totals
}

TEST(EpochLimits, ManyRanksTimesManyEpochsDropOnlyThePerRankRows) {
    // 300 ranks x 300 epochs = 90,000 cells > kMaxEpochRankCells.
    DlStream s;
    std::map<uint32_t, std::map<std::string, std::string>> env;
    const uint32_t ranks = 300, epochs = 300;
    for (uint32_t k = 0; k < ranks; ++k) env[1000 + k] = {{"RANK", std::to_string(k)}};
    for (uint32_t e = 0; e < epochs; ++e) {
        s.marker(1000, 10'000 + e * 1000, "epoch/" + std::to_string(e));
        s.call({.pid = 1000 + e % ranks, .start = 10'000 + e * 1000 + 5, .dur = 100, .ino = 7, .ret = 4096});
    }
    const auto r = test::build(s, test::dl_capture(10'000 + epochs * 1000), env);
    ASSERT_EQ(r.ranks.size(), ranks);
    ASSERT_EQ(r.epochs.size(), epochs);
    ASSERT_EQ(r.limits.size(), 1u);
    EXPECT_NE(r.limits[0].find("per-rank tables"), std::string::npos);
    uint64_t reads = 0;
    for (const auto& e : r.epochs) {
        EXPECT_TRUE(e.ranks.empty());
        reads += e.ops[IOLENS_OP_READ].calls;
        EXPECT_EQ(e.ops[IOLENS_OP_READ].calls, 1u);
        EXPECT_GT(e.rank_wall_ns(), 0u);
    }
    EXPECT_EQ(reads, epochs);
    // Under the limit the rows are there, and sum to the same epoch figures.
    std::map<uint32_t, std::map<std::string, std::string>> few(env.begin(), std::next(env.begin(), 2));
    DlStream t;
    for (uint32_t e = 0; e < 4; ++e) {
        t.marker(1000, 10'000 + e * 1000, "epoch/" + std::to_string(e));
        t.call({.pid = 1000 + e % 2, .start = 10'000 + e * 1000 + 5, .dur = 100, .ino = 7, .ret = 4096});
    }
    const auto u = test::build(t, test::dl_capture(20'000), few);
    EXPECT_TRUE(u.limits.empty());
    for (const auto& e : u.epochs) {
        ASSERT_EQ(e.ranks.size(), 2u);
        uint64_t wall = 0;
        for (const auto& er : e.ranks) wall += er.wall_ns;
        EXPECT_EQ(wall, e.rank_wall_ns());
    }
}
