// Ranks from ENV chunks, inheritance through fork, per-rank sums, imbalance,
// and the I/O-stall figures (io_time union, critical I/O).
#include <gtest/gtest.h>

#include "model/intervals.h"
#include "model/rank_env.h"
#include "model/replay.h"
#include "model_rank_records.h"

using namespace iolens;
using namespace iolens::model;
using test::DlStream;
using test::kMs;

namespace {

TEST(RankEnv, PrecedenceOverrideAndNonIntegers) {
    std::map<std::string, std::string> v = {
        {"SLURM_PROCID", "5"}, {"RANK", "3"}, {"LOCAL_RANK", "1"}, {"WORLD_SIZE", "8"}};
    auto re = parse_rank_env(v);
    ASSERT_TRUE(re.rank);
    EXPECT_EQ(*re.rank, 3);
    EXPECT_EQ(re.source, "RANK");
    EXPECT_EQ(re.local_rank, 1);
    EXPECT_EQ(re.world_size, 8);
    re = parse_rank_env(v, "SLURM_PROCID");
    EXPECT_EQ(re.rank, 5);
    EXPECT_EQ(re.source, "SLURM_PROCID");
    // A non-integer RANK is as if absent: the next variable wins.
    v["RANK"] = "three";
    v["OMPI_COMM_WORLD_RANK"] = " 2 ";
    re = parse_rank_env(v);
    EXPECT_EQ(re.rank, 2);
    EXPECT_EQ(re.source, "OMPI_COMM_WORLD_RANK");
    EXPECT_FALSE(parse_rank_env({{"RANK", "1.5"}}).rank);
    EXPECT_FALSE(parse_rank_env({{"MY_RANK", "1"}}).rank);
    EXPECT_EQ(parse_rank_env({{"MY_RANK", "7"}, {"RANK", "1"}}, "MY_RANK").rank, 7);
    // Everything the capture side must read.
    const auto& all = rank_env_variables();
    for (const char* name : {"RANK", "PMI_RANK", "SLURM_PROCID", "LOCAL_RANK", "WORLD_SIZE",
                             "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_NTASKS"})
        EXPECT_NE(std::find(all.begin(), all.end(), name), all.end()) << name;
    EXPECT_EQ(rank_variables().front(), "RANK");
    EXPECT_EQ(rank_variables().back(), "SLURM_PROCID");
}

// Two ranks (100, 200) forked by a launcher (50), each with two workers.
DlStream two_rank_job() {
    DlStream s;
    s.fork(100, 50, 1 * kMs).fork(200, 50, 1 * kMs);
    s.fork(101, 100, 2 * kMs).fork(102, 100, 2 * kMs).fork(201, 200, 2 * kMs);
    s.call({.pid = 101, .start = 10 * kMs, .ino = 1, .ret = 1000});
    s.call({.pid = 102, .start = 11 * kMs, .ino = 2, .ret = 3000});
    s.call({.pid = 201, .start = 12 * kMs, .dur = 5 * kMs, .ino = 3, .ret = 8000});
    s.call({.pid = 50, .start = 13 * kMs, .ino = 9, .ret = 1});  // the launcher: no rank
    s.exit(101, 100, 50 * kMs).exit(102, 100, 50 * kMs);
    return s;
}

TEST(Ranks, FromEnvInheritedByWorkers) {
    const auto r = test::build(two_rank_job(), test::dl_capture(100 * kMs),
                               {{100, {{"RANK", "0"}, {"LOCAL_RANK", "0"}, {"WORLD_SIZE", "2"}}},
                                {200, {{"RANK", "1"}, {"WORLD_SIZE", "2"}}}});
    ASSERT_EQ(r.ranks.size(), 2u);
    const auto& r0 = r.ranks[0];
    EXPECT_EQ(r0.rank, 0);
    EXPECT_EQ(r0.rank_source, "RANK");
    EXPECT_EQ(r0.local_rank, 0);
    EXPECT_EQ(r0.world_size, 2);
    EXPECT_EQ(r0.pids, (std::vector<uint32_t>{100, 101, 102}));
    EXPECT_EQ(r0.root_pids, (std::vector<uint32_t>{100}));
    EXPECT_EQ(r0.ops[IOLENS_OP_READ].calls, 2u);
    EXPECT_EQ(r0.ops[IOLENS_OP_READ].bytes, 4000u);
    // Wall: fork of 100 to the end of the capture (it never exited).
    EXPECT_EQ(r0.wall_ns, 100 * kMs - 1 * kMs);
    const auto& r1 = r.ranks[1];
    EXPECT_EQ(r1.rank, 1);
    EXPECT_FALSE(r1.local_rank);
    EXPECT_EQ(r1.pids, (std::vector<uint32_t>{200, 201}));
    EXPECT_EQ(r1.ops[IOLENS_OP_READ].bytes, 8000u);
    EXPECT_EQ(r1.io_time_ns, 5 * kMs);
    ASSERT_EQ(r1.threads.size(), 1u);
    EXPECT_EQ(r1.threads[0].tid, 201u);

    // Imbalance and straggler.
    ASSERT_TRUE(r.rank_imbalance);
    const auto& im = *r.rank_imbalance;
    EXPECT_EQ(im.straggler_rank, 1);
    EXPECT_EQ(im.straggler_io_time_ns, 5 * kMs);
    EXPECT_EQ(im.read_bytes.min, 4000u);
    EXPECT_EQ(im.read_bytes.max, 8000u);
    EXPECT_DOUBLE_EQ(im.read_bytes.mean, 6000.0);
    ASSERT_TRUE(im.read_bytes.max_over_mean);
    EXPECT_NEAR(*im.read_bytes.max_over_mean, 8000.0 / 6000.0, 1e-9);
    EXPECT_EQ(im.io_time_ns.min, 2000u);  // rank 0: two disjoint 1000 ns reads
}

TEST(Ranks, OverrideVariableChangesTheRanks) {
    BuilderOptions opt;
    opt.rank_env_override = "SLURM_PROCID";
    const auto r = test::build(
        two_rank_job(), test::dl_capture(100 * kMs),
        {{100, {{"RANK", "0"}, {"SLURM_PROCID", "7"}}}, {200, {{"RANK", "1"}, {"SLURM_PROCID", "4"}}}}, opt);
    ASSERT_EQ(r.ranks.size(), 2u);
    EXPECT_EQ(r.ranks[0].rank, 4);
    EXPECT_EQ(r.ranks[0].pids, (std::vector<uint32_t>{200, 201}));
    EXPECT_EQ(r.ranks[1].rank, 7);
    EXPECT_EQ(r.ranks[1].rank_source, "SLURM_PROCID");
}

TEST(Ranks, NoRankVariablesMeansOneDefaultRank) {
    const auto r = test::build(two_rank_job(), test::dl_capture(100 * kMs));
    ASSERT_EQ(r.ranks.size(), 1u);
    EXPECT_EQ(r.ranks[0].rank, 0);
    EXPECT_EQ(r.ranks[0].rank_source, "default");
    EXPECT_EQ(r.ranks[0].pids, (std::vector<uint32_t>{50, 100, 101, 102, 200, 201}));
    EXPECT_EQ(r.ranks[0].ops[IOLENS_OP_READ].calls, 4u);
    EXPECT_FALSE(r.rank_imbalance);
    EXPECT_TRUE(r.epochs.empty());
}

TEST(Ranks, EnvChunkThroughReplay) {
    Replay replay;
    recording::Chunk meta{recording::ChunkType::Meta, {}};
    const std::string m = R"({"start_mono_ns": 1, "duration_ns": 99000000})";
    for (char ch : m) meta.payload.push_back(static_cast<std::byte>(ch));
    ASSERT_TRUE(replay.apply(meta));
    const std::string env = R"({"pid": 200, "vars": {"RANK": "1", "WORLD_SIZE": "2"}})";
    recording::Chunk chunk{recording::ChunkType::Env, {}};
    for (char ch : env) chunk.payload.push_back(static_cast<std::byte>(ch));
    ASSERT_TRUE(replay.apply(chunk));
    const std::string env0 = R"({"pid": 100, "vars": {"RANK": "0"}})";
    recording::Chunk chunk0{recording::ChunkType::Env, {}};
    for (char ch : env0) chunk0.payload.push_back(static_cast<std::byte>(ch));
    ASSERT_TRUE(replay.apply(chunk0));
    const auto s = two_rank_job();
    ASSERT_TRUE(replay.apply_records(s.bytes()));
    const auto r = replay.finish();
    ASSERT_EQ(r.ranks.size(), 2u);
    EXPECT_EQ(r.ranks[1].world_size, 2);
    recording::Chunk bad{recording::ChunkType::Env, {}};
    for (char ch : std::string(R"({"vars": {}})")) bad.payload.push_back(static_cast<std::byte>(ch));
    EXPECT_FALSE(replay.apply(bad));
}

TEST(Intervals, UnionIntersectionWindow) {
    IntervalSet a({{10, 20}, {15, 30}, {40, 50}, {5, 5}});
    EXPECT_EQ(a.intervals().size(), 2u);
    EXPECT_EQ(a.measure(), 30u);
    EXPECT_EQ(a.measure_within(25, 45), 10u);
    IntervalSet b({{0, 12}, {28, 42}});
    EXPECT_EQ(a.intersect(b).measure(), 2u + 2u + 2u);
    EXPECT_EQ(a.unite(b).measure(), 42u + 8u);
}

TEST(Stalls, IoTimeIsTheUnionOverThreads) {
    DlStream s;
    s.fork(100, 1, 1 * kMs);
    // Two threads of 100 and a worker overlap: [10,20) [15,25) [22,30) [40,45) ms.
    s.call({.pid = 100, .tid = 100, .start = 10 * kMs, .dur = 10 * kMs, .ino = 1});
    s.call({.pid = 100, .tid = 105, .start = 15 * kMs, .dur = 10 * kMs, .ino = 1});
    s.fork(101, 100, 2 * kMs);
    s.call({.pid = 101, .start = 22 * kMs, .dur = 8 * kMs, .ino = 2});
    s.call({.pid = 101, .start = 40 * kMs, .dur = 5 * kMs, .ino = 2});
    const auto r = test::build(s, test::dl_capture(101 * kMs), {{100, {{"RANK", "0"}}}});
    ASSERT_EQ(r.ranks.size(), 1u);
    const auto& rk = r.ranks[0];
    EXPECT_EQ(rk.io_time_ns, 25 * kMs);
    EXPECT_EQ(rk.wall_ns, 100 * kMs);
    ASSERT_TRUE(rk.io_time_share());
    EXPECT_DOUBLE_EQ(*rk.io_time_share(), 0.25);
    ASSERT_EQ(rk.threads.size(), 3u);
    EXPECT_EQ(rk.threads[0].tid, 101u);  // 13 ms
    EXPECT_EQ(rk.threads[0].io_ns, 13 * kMs);
    EXPECT_EQ(rk.threads[1].io_ns, 10 * kMs);
    // Critical: only the main thread's own call (no off-CPU records).
    EXPECT_EQ(rk.critical_io_ns, 10 * kMs);
}

TEST(Stalls, CriticalIsMainIoPlusOffCpuWhileIoInFlight) {
    DlStream s;
    s.fork(100, 1, 0);
    s.fork(101, 100, 1 * kMs);
    s.call({.pid = 100, .start = 10 * kMs, .dur = 5 * kMs, .ino = 1});   // main: [10,15)
    s.call({.pid = 101, .start = 20 * kMs, .dur = 20 * kMs, .ino = 2});  // worker: [20,40)
    // Main thread sleeps [12,30) (overlaps its own I/O and the worker's) and
    // [50,60) with no I/O in flight (not critical).
    s.offcpu(100, 12 * kMs, 30 * kMs).offcpu(100, 50 * kMs, 60 * kMs);
    // A worker's off-CPU time is not the main thread's.
    s.offcpu(101, 20 * kMs, 40 * kMs);
    const auto r = test::build(s, test::dl_capture(100 * kMs), {{100, {{"RANK", "0"}}}});
    const auto& rk = r.ranks.at(0);
    EXPECT_EQ(rk.io_time_ns, 25 * kMs);
    // [10,15) ∪ ([12,30) ∩ ([10,15) ∪ [20,40))) = [10,15) ∪ [20,30) = 15 ms
    EXPECT_EQ(rk.critical_io_ns, 15 * kMs);
}

}  // namespace
