// model::merge_reports: many nodes' reports as one (issue #16).
#include <gtest/gtest.h>

#include "analysis_fixtures.h"
#include "model/job_merge.h"

namespace iolens::model {
namespace {

using namespace iolens::test;

// A node's report: clean_report() with its ranks renumbered from base, on
// host `host`, whose monotonic clock reads `mono_at` when the wall clock
// reads 1,000,000 s.
Report node(const std::string& host, int64_t base, uint64_t mono_at) {
    Report r = clean_report();
    r.capture.hostname = host;
    r.capture.job_id = "42";
    r.capture.start_mono_ns = mono_at;
    r.capture.start_unix_ns = 1'000'000 * kS;
    r.capture.anchor_start_monotonic_ns = mono_at;
    r.capture.anchor_start_realtime_ns = 1'000'000 * kS;
    for (auto& k : r.ranks) k.rank += base;
    for (auto& e : r.epochs) {
        e.start_ns += mono_at - 1000 * kS;  // the fixture's epochs start at its capture's start
        e.end_ns += mono_at - 1000 * kS;
        for (auto& er : e.ranks) er.rank += base;
    }
    return r;
}

TEST(JobMerge, RanksAcrossNodesEpochsOnOneClock) {
    std::vector<std::pair<std::string, Report>> parts;
    parts.emplace_back("a.iolens", node("a", 0, 1000 * kS));
    parts.emplace_back("b.iolens", node("b", 2, 5000 * kS));  // booted 4000 s earlier
    auto m = merge_reports(std::move(parts));
    ASSERT_TRUE(m) << m.error().message;
    ASSERT_EQ(m->ranks.size(), 4u);
    EXPECT_EQ(m->ranks[0].node, "a");
    EXPECT_EQ(m->ranks[3].node, "b");
    EXPECT_EQ(m->ranks[3].rank, 3);
    ASSERT_EQ(m->nodes.size(), 2u);
    EXPECT_EQ(m->nodes[1].clock_offset_ns, -4000 * static_cast<int64_t>(kS));
    EXPECT_EQ(m->nodes[1].ranks, (std::vector<int64_t>{2, 3}));
    // Epoch 1 started at the same wall time on both: one start on a's clock.
    ASSERT_EQ(m->epochs.size(), 3u);
    EXPECT_EQ(m->epochs[0].start_ns, 1000 * kS);
    EXPECT_EQ(m->epochs[0].ranks.size(), 4u);
    EXPECT_EQ(m->epochs[0].ops[IOLENS_OP_READ].bytes, 2 * 3'072 * kMiB);
    EXPECT_EQ(m->totals[IOLENS_OP_READ].bytes, 2 * 10'240 * kMiB);
    EXPECT_EQ(m->capture.hostname, "a,b");
    EXPECT_EQ(m->capture.duration_ns, 100 * kS);
    // The same 100 shard files on a shared file system: one row each.
    EXPECT_EQ(m->files.size(), 100u);
    EXPECT_EQ(m->files_total, 100u);
    EXPECT_EQ(m->files[0].ops[IOLENS_OP_READ].calls, 200u);
    ASSERT_TRUE(m->rank_imbalance);
}

TEST(JobMerge, ConflictsAreRefused) {
    std::vector<std::pair<std::string, Report>> parts;
    parts.emplace_back("a.iolens", node("a", 0, 1000 * kS));
    parts.emplace_back("a2.iolens", node("a", 2, 1000 * kS));
    auto m = merge_reports(parts);
    ASSERT_FALSE(m);
    EXPECT_NE(m.error().message.find("the same node twice"), std::string::npos) << m.error().message;

    parts[1] = {"b.iolens", node("b", 0, 1000 * kS)};
    m = merge_reports(parts);
    ASSERT_FALSE(m);
    EXPECT_NE(m.error().message.find("rank 0 is in both a.iolens"), std::string::npos) << m.error().message;

    // Without rank variables each node is its own default rank 0: kept apart.
    for (auto& [_, rep] : parts)
        for (auto& k : rep.ranks) k.rank_source = "default";
    parts[1].second.ranks.pop_back();
    parts[0].second.ranks.pop_back();
    auto d = merge_reports(parts);
    ASSERT_TRUE(d) << d.error().message;
    ASSERT_EQ(d->ranks.size(), 2u);
    EXPECT_EQ(d->ranks[0].node, "a");
    EXPECT_EQ(d->ranks[1].node, "b");

    parts[1] = {"c.iolens", node("c", 2, 1000 * kS)};
    parts[1].second.capture.job_id = "43";
    m = merge_reports(parts);
    ASSERT_FALSE(m);
    EXPECT_NE(m.error().message.find("different jobs"), std::string::npos);
    EXPECT_TRUE(merge_reports(parts, MergeOptions{true}));
}

}  // namespace
}  // namespace iolens::model
