// The findings rule engine: each rule fires on the pattern it names, with the
// numbers that triggered it, and stays silent on a healthy job and when the
// figures it needs were not measured.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/findings.h"
#include "analysis_fixtures.h"

using namespace iolens::model;
using namespace iolens::test;
using iolens::analysis::analyze;
using iolens::analysis::Thresholds;

namespace {

std::vector<std::string> ids(const std::vector<Finding>& fs) {
    std::vector<std::string> out;
    for (const auto& f : fs) out.push_back(f.id);
    return out;
}

// Every finding carries a title, a severity we know, an evidence object and
// a recommendation.
void expect_well_formed(const std::vector<Finding>& fs) {
    for (const auto& f : fs) {
        EXPECT_FALSE(f.title.empty()) << f.id;
        EXPECT_TRUE(severity_from_name(severity_name(f.severity)).has_value()) << f.id;
        EXPECT_FALSE(f.evidence.empty()) << f.id;
        EXPECT_GT(f.recommendation.size(), 40u) << f.id;
    }
}

// Analyze and return the one finding with that id (failing the test if absent).
Finding expect_finding(const Report& r, const std::string& id) {
    const auto fs = analyze(r);
    expect_well_formed(fs);
    const Finding* f = find(fs, id);
    EXPECT_NE(f, nullptr) << id << " did not fire; got " << ::testing::PrintToString(ids(fs));
    return f ? *f : Finding{};
}

}  // namespace

TEST(AnalysisFindings, CleanWorkloadHasNoFindings) {
    const auto fs = analyze(clean_report());
    EXPECT_TRUE(fs.empty()) << ::testing::PrintToString(ids(fs));
}

TEST(AnalysisFindings, EmptyReportHasNoFindings) {
    EXPECT_TRUE(analyze(Report{}).empty());
    Report r;
    r.capture = capture();
    EXPECT_TRUE(analyze(r).empty());
}

TEST(AnalysisFindings, AddFindingsStoresThem) {
    auto r = clean_report();
    r.totals[IOLENS_OP_READ] = op(200'000, 4 * kKiB, 20 * kS);
    iolens::analysis::add_findings(r);
    ASSERT_EQ(r.findings.size(), 1u);
    EXPECT_EQ(r.findings[0].id, "small_reads");
}

// --- small_reads --------------------------------------------------------------

TEST(AnalysisSmallReads, FiresOnSmallReads) {
    auto r = clean_report();
    r.totals[IOLENS_OP_READ] = op(200'000, 4 * kKiB, 20 * kS);
    const auto f = expect_finding(r, "small_reads");
    EXPECT_STREQ(severity_name(f.severity), "warn");
    EXPECT_EQ(f.evidence["read_calls"], 200'000u);
    EXPECT_EQ(f.evidence["p50_read_bytes"], 4096u);
    EXPECT_EQ(f.evidence["small_call_share"], 1.0);
    EXPECT_EQ(f.evidence["read_time_capture_share"], 0.2);
    EXPECT_NE(f.recommendation.find("WebDataset"), std::string::npos);
}

TEST(AnalysisSmallReads, SilentWhenFewOrCheapOrLarge) {
    auto r = clean_report();
    r.totals[IOLENS_OP_READ] = op(5'000, 4 * kKiB, 20 * kS);  // too few calls
    EXPECT_EQ(find(analyze(r), "small_reads"), nullptr);
    r.totals[IOLENS_OP_READ] = op(200'000, 4 * kKiB, kS);  // 1% of the capture
    EXPECT_EQ(find(analyze(r), "small_reads"), nullptr);
    r.totals[IOLENS_OP_READ] = op(200'000, 64 * kKiB, 20 * kS);  // at the limit
    EXPECT_EQ(find(analyze(r), "small_reads"), nullptr);
}

TEST(AnalysisSmallReads, UnknownDurationUsesAbsoluteTime) {
    auto r = clean_report();
    r.capture.duration_ns = 0;
    r.totals[IOLENS_OP_READ] = op(200'000, 4 * kKiB, 2 * kS);
    const auto f = expect_finding(r, "small_reads");
    EXPECT_FALSE(f.evidence.contains("read_time_capture_share"));
    r.totals[IOLENS_OP_READ] = op(200'000, 4 * kKiB, kS / 2);
    EXPECT_EQ(find(analyze(r), "small_reads"), nullptr);
}

// --- random_access ------------------------------------------------------------

TEST(AnalysisRandomAccess, FiresOnRandomSmallReads) {
    auto r = clean_report();
    for (auto& f : r.files) {
        f.ops[IOLENS_OP_READ] = op(1'600, 64 * kKiB, kS / 5);
        f.sequential = 10;
        f.random = 90;
    }
    r.files[7].random = 500;
    const auto f = expect_finding(r, "random_access");
    EXPECT_STREQ(severity_name(f.severity), "warn");
    EXPECT_EQ(f.evidence["files"], 100u);
    EXPECT_EQ(f.evidence["random_accesses"], 99u * 90 + 500);
    EXPECT_EQ(f.evidence["sequential_accesses"], 1000u);
    EXPECT_EQ(f.evidence["mean_read_bytes"], 64 * kKiB);
    EXPECT_EQ(f.evidence["most_random_file"], "/data/shard-7.tar");
    EXPECT_NE(f.recommendation.find("POSIX_FADV_RANDOM"), std::string::npos);
}

TEST(AnalysisRandomAccess, LargeRandomReadsAreInfo) {
    auto r = clean_report();
    for (auto& f : r.files) f.sequential = 10, f.random = 90;
    const auto f = expect_finding(r, "random_access");
    EXPECT_STREQ(severity_name(f.severity), "info");
    EXPECT_EQ(f.evidence["random_share"], 0.9);
}

// Issue #19: 20,000 random 512-byte preads over 64 files of 256 KiB got
// small_reads but no random_access, as the rule looked only at files that
// returned 1 MiB each (these returned 156 KiB). Files are judged by their
// accesses now, whatever their size.
TEST(AnalysisRandomAccess, JudgesFilesByAccessesNotBytes) {
    auto r = clean_report();
    r.files.resize(64);
    for (auto& f : r.files) {
        f.size = 256 * kKiB;
        f.ops[IOLENS_OP_READ] = op(312, 512, kS / 10);  // 156 KiB returned
        f.sequential = 2;
        f.random = 310;
    }
    const auto f = expect_finding(r, "random_access");
    EXPECT_STREQ(severity_name(f.severity), "warn");
    EXPECT_EQ(f.evidence["files"], 64u);
    EXPECT_EQ(f.evidence["random_accesses"], 64u * 310);
}

TEST(AnalysisRandomAccess, IgnoresFilesWithFewAccessesAndSoftware) {
    auto r = clean_report();
    r.files.resize(64);
    for (auto& f : r.files) {  // a config read in a few calls has no order
        f.sequential = 0;
        f.random = Thresholds{}.random_min_file_accesses - 1;
    }
    EXPECT_EQ(find(analyze(r), "random_access"), nullptr);
    for (auto& f : r.files) {  // shared libraries and modules are not the dataset
        f.software = true;
        f.random = 1'000;
    }
    EXPECT_EQ(find(analyze(r), "random_access"), nullptr);
}

// --- io_stall -----------------------------------------------------------------

TEST(AnalysisIoStall, FiresPerRankWithSeverityByShare) {
    auto r = clean_report();
    r.ranks[1].critical_io_ns = 40 * kS;
    r.ranks[1].io_time_ns = 40 * kS;
    auto f = expect_finding(r, "io_stall");
    EXPECT_STREQ(severity_name(f.severity), "high");
    EXPECT_EQ(f.evidence["rank"], 1);
    EXPECT_EQ(f.evidence["stall_share"], 0.4);
    EXPECT_EQ(f.evidence["critical_io_ns"], 40 * kS);
    EXPECT_EQ(f.evidence["ranks_stalled"], 1u);
    EXPECT_NE(f.recommendation.find("num_workers"), std::string::npos);
    EXPECT_NE(f.recommendation.find("prefetch_factor"), std::string::npos);

    r.ranks[1].critical_io_ns = 15 * kS;
    f = expect_finding(r, "io_stall");
    EXPECT_STREQ(severity_name(f.severity), "warn");
    EXPECT_EQ(f.evidence["stall_share"], 0.15);
}

TEST(AnalysisIoStall, FiresOnOneEpoch) {
    auto r = clean_report();
    r.epochs[0].ranks[0].critical_io_ns = 12 * kS;  // cold first epoch: 36%
    const auto f = expect_finding(r, "io_stall");
    EXPECT_STREQ(severity_name(f.severity), "high");
    EXPECT_EQ(f.evidence["epoch"], 1u);
    EXPECT_EQ(f.evidence["rank"], 0);
    // Issue #19: it said "ranks_stalled 0" next to a title naming rank 0. A
    // rank stalled in one epoch is a rank stalled.
    EXPECT_EQ(f.evidence["ranks_stalled"], 1u);
    EXPECT_EQ(f.evidence["epochs_stalled"], 1u);
    EXPECT_NE(f.title.find("epoch 1"), std::string::npos);
}

// Issue #19: a job made slow by its read pattern stalls; the pattern is the
// cause to fix and comes first, as severe as the stall, which follows it.
// An info pattern (a fact that costs little) explains nothing.
TEST(AnalysisIoStall, FollowsTheReadPatternThatExplainsIt) {
    auto r = clean_report();
    for (auto& f : r.files) {
        f.ops[IOLENS_OP_READ] = op(1'600, 64 * kKiB, kS / 5);
        f.sequential = 10;
        f.random = 90;
    }
    r.ranks[0].critical_io_ns = 40 * kS;
    auto fs = analyze(r);
    ASSERT_GE(fs.size(), 2u);
    EXPECT_EQ(fs[0].id, "random_access") << ::testing::PrintToString(ids(fs));
    EXPECT_STREQ(severity_name(fs[0].severity), "high");
    EXPECT_EQ(fs[1].id, "io_stall");
    EXPECT_STREQ(severity_name(fs[1].severity), "high");
    EXPECT_EQ(fs[1].evidence["explained_by"], "random_access");
    EXPECT_EQ(fs[0].evidence["explains"], "io_stall");
    EXPECT_NE(fs[1].title.find("see random_access"), std::string::npos);

    r = clean_report();
    for (auto& f : r.files) f.sequential = 10, f.random = 90;  // large random reads: info
    r.ranks[0].critical_io_ns = 40 * kS;
    fs = analyze(r);
    ASSERT_FALSE(fs.empty());
    EXPECT_EQ(fs[0].id, "io_stall");
    EXPECT_FALSE(fs[0].evidence.contains("explained_by"));

    // self_eviction is info for intent, not size: it explains a stall.
    r = clean_report();
    for (size_t e = 1; e <= 2; ++e) {
        r.epochs[e].page_cache = cache(0, 3 * kGiB);
        r.epochs[e].page_cache.evicted_bytes = r.epochs[e].page_cache.evicted_by_job_bytes = 3 * kGiB;
    }
    r.ranks[0].critical_io_ns = 15 * kS;
    fs = analyze(r);
    ASSERT_GE(fs.size(), 2u);
    EXPECT_EQ(ids(fs)[0], "self_eviction") << ::testing::PrintToString(ids(fs));
    EXPECT_STREQ(severity_name(fs[0].severity), "warn");
    EXPECT_EQ(fs[1].evidence["explained_by"], "self_eviction");
    // ... but is never made high by it (a cold-read benchmark stalls by design).
    r.ranks[0].critical_io_ns = 40 * kS;
    fs = analyze(r);
    EXPECT_EQ(ids(fs)[0], "self_eviction") << ::testing::PrintToString(ids(fs));
    EXPECT_STREQ(severity_name(fs[0].severity), "warn");
}

// small_reads explains a stall only when the stalled rank's bytes came in
// small calls: a loader parsing a header in tiny reads beside each 1 MiB
// sample has a small median read, and waits for the large reads.
TEST(AnalysisIoStall, SmallHeadersBesideLargeReadsExplainNothing) {
    auto r = clean_report();
    r.totals[IOLENS_OP_READ] = op(200'000, 4 * kKiB, 20 * kS);  // small_reads: warn
    r.ranks[0].critical_io_ns = 35 * kS;
    for (auto& rank : r.ranks) rank.ops[IOLENS_OP_READ] = op(100'000, 4 * kKiB, 10 * kS);
    auto fs = analyze(r);
    ASSERT_NE(find(fs, "small_reads"), nullptr);
    EXPECT_EQ(find(fs, "io_stall")->evidence["explained_by"], "small_reads");
    // As many 1 MiB reads beside them: the small ones carry 1/128 of the bytes.
    for (auto& rank : r.ranks) {
        auto& rd = rank.ops[IOLENS_OP_READ];
        rd.size_bytes.add(kMiB, 100'000);
        rd.bytes += 100'000 * kMiB;
    }
    fs = analyze(r);
    ASSERT_NE(find(fs, "small_reads"), nullptr);
    EXPECT_FALSE(find(fs, "io_stall")->evidence.contains("explained_by"));
    EXPECT_EQ(fs[0].id, "io_stall") << ::testing::PrintToString(ids(fs));
}

// Issue #19: 305 of 370 ms of "critical I/O" was import torch before the
// first data read. Start-up is its own figure (startup_io, info), not a stall.
TEST(AnalysisIoStall, StartUpIsNotAStall) {
    auto r = clean_report();
    r.split.known = true;
    r.split.data_files = 100;
    r.epochs.clear();
    for (auto& k : r.ranks) {
        k.data_reads = 5'120;
        k.wall_ns = 2 * kS;
        k.critical_io_ns = 370 * kS / 1000;
    }
    // Before: with start-up counted, 370 ms of 2 s (18.5%) was a stall.
    EXPECT_NE(find(analyze(r), "io_stall"), nullptr);
    for (auto& k : r.ranks) {
        k.startup_ns = kS;
        k.startup_critical_io_ns = 305 * kS / 1000;
    }
    auto fs = analyze(r);
    EXPECT_EQ(find(fs, "io_stall"), nullptr);  // 65 ms of the 1 s after start-up
    const auto* s = find(fs, "startup_io");
    ASSERT_NE(s, nullptr);
    EXPECT_STREQ(severity_name(s->severity), "info");
    EXPECT_EQ(s->evidence["startup_critical_io_ns"], 305 * kS / 1000);
    EXPECT_EQ(s->evidence["startup_ns"], kS);
    // A stall after start-up still fires, measured over the time after it.
    for (auto& k : r.ranks) k.critical_io_ns = 505 * kS / 1000;
    const auto f = expect_finding(r, "io_stall");
    EXPECT_EQ(f.evidence["critical_io_ns"], 200 * kS / 1000);
    EXPECT_EQ(f.evidence["wall_ns"], kS);
}

// Issue #19 (a checkpoint-only job): no reads of data files, so no input
// pipeline: io_stall must not tell it to raise num_workers.
TEST(AnalysisIoStall, SilentWithoutDataLoading) {
    auto r = clean_report();
    r.split.known = true;
    for (auto& k : r.ranks) k.critical_io_ns = 40 * kS;  // all of it writes and fsyncs
    r.epochs.clear();
    EXPECT_EQ(find(analyze(r), "io_stall"), nullptr);
    r.ranks[1].data_reads = 1;
    EXPECT_EQ(expect_finding(r, "io_stall").evidence["rank"], 1);
}

// 40 ms of waiting in a 300 ms epoch is 13%, but nothing to win back
// (stall_min_ns): DataLoader workers starting at an epoch's start.
TEST(AnalysisIoStall, SilentOnATinyStallOfAShortEpoch) {
    auto r = clean_report();
    r.epochs[0].ranks[0].wall_ns = 300 * kS / 1000;
    r.epochs[0].ranks[0].critical_io_ns = 40 * kS / 1000;
    EXPECT_EQ(find(analyze(r), "io_stall"), nullptr);
    r.epochs[0].ranks[0].critical_io_ns = 60 * kS / 1000;  // 20%, 60 ms
    EXPECT_EQ(expect_finding(r, "io_stall").evidence["epoch"], 1);
}

TEST(AnalysisIoStall, SilentOnShortRanksAndWithoutRanks) {
    auto r = clean_report();
    r.ranks[0].critical_io_ns = kS / 10;
    r.ranks[0].wall_ns = kS / 8;  // below stall_min_wall_ns: too short to judge
    EXPECT_EQ(find(analyze(r), "io_stall"), nullptr);
    r.ranks.clear();
    r.epochs.clear();
    EXPECT_EQ(find(analyze(r), "io_stall"), nullptr);
}

// --- rank_imbalance -----------------------------------------------------------

TEST(AnalysisRankImbalance, NamesTheStraggler) {
    auto r = clean_report();
    r.ranks[1].io_time_ns = 16 * kS;  // its peer's 10 s: 1.6x (1.23x the mean of both)
    auto f = expect_finding(r, "rank_imbalance");
    EXPECT_STREQ(severity_name(f.severity), "warn");
    EXPECT_EQ(f.evidence["metric"], "io_time_ns");
    EXPECT_EQ(f.evidence["straggler_rank"], 1);
    EXPECT_EQ(f.evidence["io_time_over_peers"], 1.6);
    EXPECT_EQ(f.evidence["io_time_max_over_mean"], 1.2308);
    EXPECT_EQ(f.evidence["min_io_time_ns"], 10 * kS);
    EXPECT_EQ(f.evidence["peers_io_time_ns"], 10 * kS);
    // Same bytes, same cache: nothing sets it apart but the time.
    EXPECT_EQ(f.evidence["cause"], "unclassified");
    EXPECT_NE(f.title.find("rank 1"), std::string::npos);

    // Two ranks: 40 s against 10 s is 4x its peer (2 ranks could never pass
    // 2x the mean of both), high.
    r.ranks[1].io_time_ns = 40 * kS;
    f = expect_finding(r, "rank_imbalance");
    EXPECT_STREQ(severity_name(f.severity), "high");
    EXPECT_EQ(f.evidence["io_time_over_peers"], 4.0);

    // Four ranks, one at 16 s, three at 10 s: 1.6x its peers, warn.
    r.ranks[1].io_time_ns = 16 * kS;
    for (int64_t k = 2; k < 4; ++k) {
        auto extra = r.ranks[0];
        extra.rank = k;
        r.ranks.push_back(extra);
    }
    f = expect_finding(r, "rank_imbalance");
    EXPECT_STREQ(severity_name(f.severity), "warn");
    EXPECT_EQ(f.evidence["straggler_rank"], 1);
    EXPECT_EQ(f.evidence["ranks"], 4u);
}

// The cause of the straggler's imbalance, from its figures against its peers'.
TEST(AnalysisRankImbalance, ClassifiesTheCause) {
    // A colder cache: same bytes, the straggler's come from the device.
    auto r = clean_report();
    r.ranks[0].page_cache = cache(5 * kGiB, 0);     // peer: all cached
    r.ranks[1].page_cache = cache(0, 5 * kGiB, 0);  // straggler: all from the device
    r.ranks[1].io_time_ns = 40 * kS;
    auto f = expect_finding(r, "rank_imbalance");
    EXPECT_EQ(f.evidence["cause"], "colder_cache");
    EXPECT_EQ(f.evidence["straggler_hit_ratio"], 0.0);
    EXPECT_EQ(f.evidence["peers_hit_ratio"], 1.0);
    EXPECT_TRUE(f.evidence["peers_io_ns_per_device_mib"].is_null());  // the peer read nothing from it
    EXPECT_NE(f.title.find("colder page cache"), std::string::npos) << f.title;
    EXPECT_NE(f.recommendation.find("stage or warm"), std::string::npos);

    // A slower device: both read everything from the device, the straggler
    // 4x slower per MiB.
    r.ranks[0].page_cache = cache(0, 5 * kGiB, 0);
    f = expect_finding(r, "rank_imbalance");
    EXPECT_EQ(f.evidence["cause"], "slower_device");
    EXPECT_EQ(f.evidence["straggler_io_ns_per_device_mib"], 40 * kS / 5'120);
    EXPECT_EQ(f.evidence["peers_io_ns_per_device_mib"], 10 * kS / 5'120);
    EXPECT_NE(f.recommendation.find("mount"), std::string::npos);

    // More bytes: the straggler's shard is 3x its peer's; time follows.
    r = clean_report();
    r.ranks[1].ops[IOLENS_OP_READ] = op(15'360, kMiB, 30 * kS);
    r.ranks[1].io_time_ns = 30 * kS;
    f = expect_finding(r, "rank_imbalance");
    EXPECT_EQ(f.evidence["cause"], "more_bytes");
    EXPECT_NE(f.recommendation.find("DistributedSampler"), std::string::npos);

    // More stall: same I/O, but its training loop waits for it longer.
    r = clean_report();
    r.ranks[1].io_time_ns = 16 * kS;
    r.ranks[1].critical_io_ns = 15 * kS;  // 15% against its peer's 1%
    f = expect_finding(r, "rank_imbalance");
    EXPECT_EQ(f.evidence["cause"], "more_stall");
    EXPECT_EQ(f.evidence["straggler_stall_share"], 0.15);
    EXPECT_NE(f.recommendation.find("num_workers"), std::string::npos);
}

// A stall of the straggler alone is the imbalance's symptom: rank_imbalance
// comes first and io_stall, never more severe, after it.
TEST(AnalysisRankImbalance, TheStragglersStallFollowsIt) {
    auto r = clean_report();
    r.ranks[0].page_cache = cache(5 * kGiB, 0);
    r.ranks[1].page_cache = cache(0, 5 * kGiB, 0);
    r.ranks[1].io_time_ns = 16 * kS;      // 1.6x: warn by the ratio ...
    r.ranks[1].critical_io_ns = 40 * kS;  // ... but its loop waits 40%: high
    auto fs = analyze(r);
    ASSERT_GE(fs.size(), 2u);
    EXPECT_EQ(fs[0].id, "rank_imbalance") << ::testing::PrintToString(ids(fs));
    EXPECT_EQ(fs[1].id, "io_stall");
    EXPECT_STREQ(severity_name(fs[0].severity), "high");
    EXPECT_EQ(fs[1].evidence["explained_by"], "rank_imbalance");
    EXPECT_NE(fs[1].title.find("the straggler"), std::string::npos);

    // Both ranks stall: the stall is the job's, not the straggler's alone.
    r.ranks[0].critical_io_ns = 35 * kS;
    fs = analyze(r);
    const auto* stall = find(fs, "io_stall");
    ASSERT_NE(stall, nullptr);
    EXPECT_FALSE(stall->evidence.contains("explained_by"));
}

TEST(AnalysisRankImbalance, ByReadBytes) {
    auto r = clean_report();
    r.ranks[0].ops[IOLENS_OP_READ] = op(15'360, kMiB, 10 * kS);  // 15 GiB vs 5: 1.5x
    const auto f = expect_finding(r, "rank_imbalance");
    EXPECT_EQ(f.evidence["metric"], "read_bytes");
    EXPECT_EQ(f.evidence["straggler_rank"], 0);
    EXPECT_EQ(f.evidence["read_bytes_max_over_mean"], 1.5);
    EXPECT_NE(f.recommendation.find("DistributedSampler"), std::string::npos);
}

TEST(AnalysisRankImbalance, SilentWhenIoIsNegligibleOrOneRank) {
    auto r = clean_report();
    r.ranks[0].io_time_ns = kS / 10;
    r.ranks[1].io_time_ns = 4 * kS;  // 1.95x but 4% of the straggler's wall time
    EXPECT_EQ(find(analyze(r), "rank_imbalance"), nullptr);
    r.ranks[1].io_time_ns = 40 * kS;
    r.ranks.pop_back();
    EXPECT_EQ(find(analyze(r), "rank_imbalance"), nullptr);
}

// --- dataset_exceeds_cache ----------------------------------------------------

TEST(AnalysisDatasetExceedsCache, FiresWhenLaterEpochsMiss) {
    auto r = clean_report();
    r.epochs[1].page_cache = cache(150 * kMiB, 2'922 * kMiB);
    r.epochs[2].page_cache = cache(150 * kMiB, 2'922 * kMiB);
    auto f = expect_finding(r, "dataset_exceeds_cache");
    EXPECT_STREQ(severity_name(f.severity), "high");
    EXPECT_EQ(f.evidence["epochs_judged"], 2u);
    EXPECT_EQ(f.evidence["epochs_missing"], 2u);
    EXPECT_EQ(f.evidence["first_epoch_read_bytes"], 3 * kGiB);
    EXPECT_EQ(f.evidence["epochs"][0]["epoch"], 2u);
    EXPECT_EQ(f.evidence["epochs"][0]["miss_bytes"], 2'922 * kMiB);
    EXPECT_NEAR(f.evidence["mean_hit_ratio"].get<double>(), 0.0488, 1e-4);
    EXPECT_NE(f.recommendation.find("memory.max"), std::string::npos);

    r.epochs[1].page_cache = cache(900 * kMiB, 2'172 * kMiB);  // 29% hit, 71% of the reads missed
    r.epochs[2].page_cache = cache(900 * kMiB, 2'172 * kMiB);
    f = expect_finding(r, "dataset_exceeds_cache");
    EXPECT_STREQ(severity_name(f.severity), "warn");
}

// A loader that drops each sample's pages itself (POSIX_FADV_DONTNEED before
// or after reading it) misses in every epoch, however small its data: not a
// data set that does not fit. Reclaim (memory pressure) is not flagged.
TEST(AnalysisDatasetExceedsCache, SilentWhenTheJobDroppedThePagesItself) {
    auto r = clean_report();
    r.epochs[1].page_cache = cache(0, 3 * kGiB);
    r.epochs[2].page_cache = cache(0, 3 * kGiB);
    r.epochs[1].page_cache.evicted_bytes = r.epochs[1].page_cache.evicted_by_job_bytes = 3 * kGiB;
    r.epochs[2].page_cache.evicted_bytes = r.epochs[2].page_cache.evicted_by_job_bytes = 3 * kGiB;
    EXPECT_EQ(find(analyze(r), "dataset_exceeds_cache"), nullptr);
    // Dropped in the epoch before the miss (after use) counts the same.
    r.epochs[2].page_cache.evicted_by_job_bytes = 0;
    EXPECT_EQ(find(analyze(r), "dataset_exceeds_cache"), nullptr);
    // Evicted by reclaim: the data set does not fit.
    r.epochs[1].page_cache.evicted_by_job_bytes = 0;
    const auto f = expect_finding(r, "dataset_exceeds_cache");
    EXPECT_EQ(f.evidence["epochs"][0]["evicted_by_job_bytes"], 0u);
}

// The same epochs, named for what they are: the job evicts its own data
// (#19). Info, so a real stall or a real cache shortage still comes first.
TEST(AnalysisSelfEviction, NamesTheJobsOwnDrops) {
    auto r = clean_report();
    EXPECT_EQ(find(analyze(r), "self_eviction"), nullptr);
    r.epochs[1].page_cache = cache(0, 3 * kGiB);
    r.epochs[2].page_cache = cache(0, 3 * kGiB);
    r.epochs[1].page_cache.evicted_bytes = r.epochs[1].page_cache.evicted_by_job_bytes = 3 * kGiB;
    r.epochs[2].page_cache.evicted_bytes = r.epochs[2].page_cache.evicted_by_job_bytes = 3 * kGiB;
    const auto f = expect_finding(r, "self_eviction");
    EXPECT_STREQ(severity_name(f.severity), "info");
    EXPECT_EQ(f.evidence["epochs_judged"], 2u);
    EXPECT_EQ(f.evidence["epochs_missing"], 2u);
    EXPECT_EQ(f.evidence["evicted_by_job_bytes"], 6 * kGiB);
    EXPECT_EQ(f.evidence["epochs"][1]["epoch"], 3u);
    EXPECT_NE(f.title.find("drops its own"), std::string::npos) << f.title;
    EXPECT_NE(f.recommendation.find("not memory pressure"), std::string::npos);
    // Reclaim's evictions are the cache's shortage, not the job's doing.
    r.epochs[1].page_cache.evicted_by_job_bytes = r.epochs[2].page_cache.evicted_by_job_bytes = 0;
    EXPECT_EQ(find(analyze(r), "self_eviction"), nullptr);
    EXPECT_NE(find(analyze(r), "dataset_exceeds_cache"), nullptr);
    // Without the page-cache probe, silent.
    r.epochs[1].page_cache.evicted_by_job_bytes = r.epochs[2].page_cache.evicted_by_job_bytes = 3 * kGiB;
    r.capture = capture(/*pagecache=*/false);
    EXPECT_EQ(find(analyze(r), "self_eviction"), nullptr);
}

TEST(AnalysisDatasetExceedsCache, SilentWithoutProbeOrLaterEpochs) {
    auto r = clean_report();
    r.epochs[1].page_cache = cache(0, 3 * kGiB);
    r.epochs[2].page_cache = cache(0, 3 * kGiB);
    r.capture = capture(/*pagecache=*/false);
    EXPECT_EQ(find(analyze(r), "dataset_exceeds_cache"), nullptr);
    r.capture = capture();
    r.epochs.resize(1);  // only the cold first epoch: nothing to judge
    EXPECT_EQ(find(analyze(r), "dataset_exceeds_cache"), nullptr);
    r.epochs.clear();
    EXPECT_EQ(find(analyze(r), "dataset_exceeds_cache"), nullptr);
}

TEST(AnalysisDatasetExceedsCache, OneMissingEpochOfManyIsNotEnough) {
    auto r = clean_report();
    for (uint32_t e = 4; e <= 5; ++e) {
        auto ep = r.epochs[2];
        ep.index = e;
        r.epochs.push_back(ep);
    }
    r.epochs[3].page_cache = cache(0, 3 * kGiB);  // 1 of 4 later epochs
    EXPECT_EQ(find(analyze(r), "dataset_exceeds_cache"), nullptr);
}

// --- metadata_heavy -----------------------------------------------------------

TEST(AnalysisMetadataHeavy, FiresOnMetadataTime) {
    auto r = clean_report();
    r.totals[IOLENS_OP_STAT] = op(100'000, 0, 15 * kS);
    const auto f = expect_finding(r, "metadata_heavy");
    EXPECT_STREQ(severity_name(f.severity), "warn");
    EXPECT_EQ(f.evidence["metadata_calls"], 100'200u);  // + 100 opens, 100 closes
    EXPECT_EQ(f.evidence["by_class"]["stat"]["calls"], 100'000u);
    const double share = f.evidence["metadata_time_share"].get<double>();
    EXPECT_GT(share, 0.3);
    EXPECT_LT(share, 0.6);

    r.totals[IOLENS_OP_STAT] = op(100'000, 0, 40 * kS);
    EXPECT_STREQ(severity_name(expect_finding(r, "metadata_heavy").severity), "high");
}

TEST(AnalysisMetadataHeavy, ManyOpensPerMiBIsInfo) {
    auto r = clean_report();
    r.totals[IOLENS_OP_OPEN] = op(100'000, 0, kS);  // ~9.8 opens per MiB read
    const auto f = expect_finding(r, "metadata_heavy");
    EXPECT_STREQ(severity_name(f.severity), "info");
    EXPECT_NEAR(f.evidence["opens_per_mib"].get<double>(), 100'000.0 / 10'240.0, 1e-3);
}

TEST(AnalysisMetadataHeavy, SilentWhenFewCallsOrNoData) {
    auto r = clean_report();
    r.totals[IOLENS_OP_STAT] = op(500, 0, 15 * kS);  // 800 metadata calls
    EXPECT_EQ(find(analyze(r), "metadata_heavy"), nullptr);
    // Only metadata, and not much of it: opens_per_mib is undefined.
    Report m;
    m.capture = capture();
    m.totals[IOLENS_OP_STAT] = op(2'000, 0, kS / 100);
    EXPECT_TRUE(analyze(m).empty());
}

// --- many_small_files ---------------------------------------------------------

TEST(AnalysisManySmallFiles, FiresOnManySmallFiles) {
    auto r = clean_report();
    r.files.clear();
    for (uint32_t i = 0; i < 1'500; ++i) {
        FileStats f;
        f.path = "/data/train/img" + std::to_string(i) + ".jpg";
        f.size = 100 * kKiB + i;
        f.ops[IOLENS_OP_READ] = op(1, f.size, kS / 100);
        r.files.push_back(f);
    }
    r.files_omitted = 500;
    r.files_total = 2'000;
    const auto f = expect_finding(r, "many_small_files");
    EXPECT_STREQ(severity_name(f.severity), "warn");
    EXPECT_EQ(f.evidence["files_read"], 2'000u);
    EXPECT_EQ(f.evidence["files_listed"], 1'500u);
    EXPECT_EQ(f.evidence["median_file_bytes"], 100 * kKiB + 750);
    EXPECT_NE(f.recommendation.find("WebDataset"), std::string::npos);
}

// The metadata of a job of many small files is their opens: the files are
// the cause, first and as severe; metadata_heavy follows and says so. On a
// host that opens files slower, the order stays (diagnosis suite's
// many_small_files: metadata 50% of the I/O time locally, 60%+ on one CI run).
static Report small_files_with_slow_opens(uint64_t opens, uint64_t open_ns, uint64_t stat_ns,
                                          uint32_t files = 2'000) {
    auto r = clean_report();
    r.files.clear();
    for (uint32_t i = 0; i < files; ++i) {
        FileStats f;
        f.path = "/data/train/img" + std::to_string(i) + ".jpg";
        f.size = 8 * kKiB;
        f.ops[IOLENS_OP_READ] = op(1, f.size, kS / 100);
        r.files.push_back(f);
    }
    r.files_total = files;
    r.totals[IOLENS_OP_OPEN] = op(opens, 0, open_ns);
    r.totals[IOLENS_OP_CLOSE] = op(opens, 0, kS / 100);
    r.totals[IOLENS_OP_STAT] = op(200, 0, stat_ns);
    return r;
}

TEST(AnalysisManySmallFiles, ExplainsTheMetadataOfItsOpens) {
    for (const uint64_t open_ns : {15 * kS, 40 * kS}) {  // metadata_heavy warn, then high
        const auto fs = analyze(small_files_with_slow_opens(2'000, open_ns, kS / 100));
        ASSERT_GE(fs.size(), 2u);
        EXPECT_EQ(fs[0].id, "many_small_files");
        EXPECT_EQ(fs[1].id, "metadata_heavy");
        EXPECT_EQ(fs[0].severity, fs[1].severity);
        EXPECT_STREQ(severity_name(fs[0].severity), open_ns == 40 * kS ? "high" : "warn");
        EXPECT_EQ(fs[0].evidence["explains"], "metadata_heavy");
        EXPECT_EQ(fs[1].evidence["explained_by"], "many_small_files");
        EXPECT_NE(fs[1].title.find("see many_small_files"), std::string::npos);
    }
}

// The pair sits where metadata_heavy sat among the other findings: neither
// ahead of a worse high stall because 20,000 files make many_small_files's
// own magnitude large, nor behind one metadata_heavy was ahead of.
TEST(AnalysisManySmallFiles, TakesThePlaceOfTheMetadataItExplains) {
    const auto pos = [](const std::vector<Finding>& fs, const std::string& id) {
        for (size_t i = 0; i < fs.size(); ++i)
            if (fs[i].id == id) return i;
        return fs.size();
    };
    // Metadata 67% (high, 2.2x its trigger), rank 1 stalled 40% (high, 4x).
    auto r = small_files_with_slow_opens(20'000, 40 * kS, kS / 100, 20'000);
    r.ranks[1].critical_io_ns = 40 * kS;
    auto fs = analyze(r);
    ASSERT_LT(pos(fs, "io_stall"), fs.size()) << ::testing::PrintToString(ids(fs));
    EXPECT_LT(pos(fs, "io_stall"), pos(fs, "many_small_files")) << ::testing::PrintToString(ids(fs));
    EXPECT_EQ(pos(fs, "metadata_heavy"), pos(fs, "many_small_files") + 1);
    EXPECT_STREQ(severity_name(find(fs, "many_small_files")->severity), "high");
    // Metadata 95% (3.2x), the stall 31% (3.1x): the metadata came first, so
    // the pair does.
    r = small_files_with_slow_opens(2'000, 382 * kS, kS / 100);
    r.ranks[1].critical_io_ns = 31 * kS;
    fs = analyze(r);
    ASSERT_LT(pos(fs, "io_stall"), fs.size()) << ::testing::PrintToString(ids(fs));
    EXPECT_EQ(fs[0].id, "many_small_files") << ::testing::PrintToString(ids(fs));
    EXPECT_EQ(fs[1].id, "metadata_heavy");
    // Metadata only info (opens per MiB read): many_small_files keeps its
    // warn and its place; the info follows it.
    r = small_files_with_slow_opens(2'000, kS / 10, kS / 100);
    r.totals[IOLENS_OP_READ] = op(2'000, 8 * kKiB, 10 * kS);  // 128 opens per MiB read
    fs = analyze(r);
    ASSERT_NE(find(fs, "metadata_heavy"), nullptr) << ::testing::PrintToString(ids(fs));
    EXPECT_STREQ(severity_name(find(fs, "metadata_heavy")->severity), "info");
    EXPECT_STREQ(severity_name(find(fs, "many_small_files")->severity), "warn");
    EXPECT_LT(pos(fs, "many_small_files"), pos(fs, "metadata_heavy"));
}

TEST(AnalysisManySmallFiles, LeavesMetadataOfOtherKindsAlone) {
    // Mostly stats: metadata_heavy is its own finding, first when high.
    auto fs = analyze(small_files_with_slow_opens(2'000, kS, 40 * kS));
    ASSERT_NE(find(fs, "many_small_files"), nullptr);
    EXPECT_EQ(fs[0].id, "metadata_heavy");
    EXPECT_STREQ(severity_name(fs[0].severity), "high");
    EXPECT_STREQ(severity_name(find(fs, "many_small_files")->severity), "warn");
    EXPECT_FALSE(find(fs, "metadata_heavy")->evidence.contains("explained_by"));
    // Files reopened many times an epoch (3 epochs, 2,000 files): keeping
    // them open is the fix, not packing them.
    fs = analyze(small_files_with_slow_opens(30'000, 40 * kS, kS / 100));
    ASSERT_NE(find(fs, "many_small_files"), nullptr);
    EXPECT_EQ(fs[0].id, "metadata_heavy");
    EXPECT_FALSE(find(fs, "many_small_files")->evidence.contains("explains"));
}

TEST(AnalysisManySmallFiles, FiresOnOpensPerEpoch) {
    auto r = clean_report();
    r.epochs[1].ops[IOLENS_OP_OPEN] = op(20'000, 0, kS);
    const auto f = expect_finding(r, "many_small_files");
    EXPECT_EQ(f.evidence["busiest_epoch"], 2u);
    EXPECT_EQ(f.evidence["busiest_epoch_opens"], 20'000u);
    EXPECT_NE(f.title.find("epoch 2"), std::string::npos);
}

TEST(AnalysisManySmallFiles, SilentOnFewLargeFilesOrWithoutFiles) {
    auto r = clean_report();
    r.epochs[1].ops[IOLENS_OP_OPEN] = op(20'000, 0, kS);
    r.epochs[1].ops[IOLENS_OP_READ] = op(30'000, kMiB, kS);  // 1.5 MiB per open
    EXPECT_EQ(find(analyze(r), "many_small_files"), nullptr);
    r.files.clear();
    r.epochs.clear();
    EXPECT_EQ(find(analyze(r), "many_small_files"), nullptr);
}

// Issue #19: 1,080 .py/.pyc and 321 .so among "1,619 files read" for 200
// JPEGs; and a job whose dataset is one 24 MiB HDF5 file was told to pack
// its samples into HDF5. Only the dataset counts.
TEST(AnalysisManySmallFiles, SoftwareIsNotTheDataset) {
    auto r = clean_report();
    r.files.clear();
    const auto add = [&](const std::string& path, uint64_t size, bool software) {
        FileStats f;
        f.path = path;
        f.size = size;
        f.software = software;
        f.ops[IOLENS_OP_READ] = op(2, size / 2, kS / 100);
        r.files.push_back(f);
    };
    for (uint32_t i = 0; i < 1'080; ++i) add("/venv/lib/torch/m" + std::to_string(i) + ".py", 8 * kKiB, true);
    for (uint32_t i = 0; i < 321; ++i) add("/venv/lib/torch/l" + std::to_string(i) + ".so", 200 * kKiB, true);
    add("/data/train.h5", 24 * kMiB, false);
    r.files_total = r.files.size();
    // Before: the listed files were all counted.
    for (auto& f : r.files) f.software = false;
    EXPECT_NE(find(analyze(r), "many_small_files"), nullptr);
    for (auto& f : r.files) f.software = f.path.find("/torch/") != std::string::npos;
    EXPECT_EQ(find(analyze(r), "many_small_files"), nullptr);
    // Nor by opens per epoch: one file reopened per sample is metadata work,
    // not a dataset to pack.
    r.split.known = true;
    r.split.data_files = 1;
    r.split.data = r.totals;
    r.epochs[1].ops[IOLENS_OP_OPEN] = op(20'000, 0, kS);
    EXPECT_EQ(find(analyze(r), "many_small_files"), nullptr);
    r.split.data_files = 2'000;
    EXPECT_NE(find(analyze(r), "many_small_files"), nullptr);
}

// --- checkpoint-only job (issue #19) -----------------------------------------

// torch.save of 3 x 256 MiB + fsync, no DataLoader: HIGH metadata_heavy from
// import torch and the checkpoint's own O_TRUNC open and flushing close, and
// no checkpoint_stall (write + sync 4.35% of wall; with the open and close 14%).
Report checkpoint_only_job() {
    auto r = clean_report();
    r.capture.duration_ns = 10 * kS;
    r.epochs.clear();
    r.files.clear();
    r.ranks.resize(1);
    r.ranks[0].wall_ns = 10 * kS;
    r.ranks[0].critical_io_ns = 2 * kS;
    r.processes.resize(2);  // torchrun and rank 0's main process (pid 100)
    r.ranks[0].pids = {100};
    auto& main = r.processes[1];
    main.ops = {};
    main.ops[IOLENS_OP_WRITE] = op(768, kMiB, 300 * kS / 1000);
    main.ops[IOLENS_OP_SYNC] = op(3, 0, 135 * kS / 1000);
    main.ops[IOLENS_OP_OPEN] = op(1'503, 0, 800 * kS / 1000);   // 3 checkpoint opens: 700 ms
    main.ops[IOLENS_OP_CLOSE] = op(1'503, 0, 300 * kS / 1000);  // 3 checkpoint closes: 265 ms
    main.ops[IOLENS_OP_STAT] = op(3'000, 0, 100 * kS / 1000);
    main.ops[IOLENS_OP_READ] = op(1'500, 64 * kKiB, 100 * kS / 1000);  // import torch
    r.totals = main.ops;
    return r;
}

TEST(AnalysisCheckpointOnly, FlushIsTheWriteNotMetadataAndNoDataLoaderAdvice) {
    auto r = checkpoint_only_job();
    // Before: no split known.
    auto fs = analyze(r);
    ASSERT_NE(find(fs, "metadata_heavy"), nullptr);
    EXPECT_STREQ(severity_name(find(fs, "metadata_heavy")->severity), "high");
    EXPECT_NE(find(fs, "io_stall"), nullptr);
    EXPECT_EQ(find(fs, "checkpoint_stall"), nullptr);
    // After: the split (start-up: import torch; flush: the checkpoint's
    // opens and closes; data: its writes and fsyncs).
    r.split.known = true;
    r.split.data_files = 3;
    r.split.startup[IOLENS_OP_OPEN] = op(1'500, 0, 100 * kS / 1000);
    r.split.startup[IOLENS_OP_CLOSE] = op(1'500, 0, 35 * kS / 1000);
    r.split.startup[IOLENS_OP_STAT] = op(3'000, 0, 100 * kS / 1000);
    r.split.startup[IOLENS_OP_READ] = r.totals[IOLENS_OP_READ];
    r.split.flush = op(6, 0, 965 * kS / 1000);
    r.split.data[IOLENS_OP_WRITE] = r.totals[IOLENS_OP_WRITE];
    r.split.data[IOLENS_OP_SYNC] = r.totals[IOLENS_OP_SYNC];
    r.processes[1].flush = r.split.flush;
    fs = analyze(r);
    EXPECT_EQ(find(fs, "metadata_heavy"), nullptr);
    EXPECT_EQ(find(fs, "io_stall"), nullptr);
    const auto* c = find(fs, "checkpoint_stall");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->evidence["checkpoint_share"], 0.14);
    EXPECT_EQ(c->evidence["flush_time_ns"], 965 * kS / 1000);
    EXPECT_EQ(c->evidence["flush_calls"], 6u);
}

// --- mmap_random --------------------------------------------------------------

// Issue #19: a random np.memmap scan brought in 33x what it touched, and no
// rule said so.
TEST(AnalysisMmapRandom, FiresWhenFaultsBringInMuchMoreThanTheyTouch) {
    auto r = clean_report();
    auto& f = r.files[0];
    f.page_cache.major_faults = 2'000;
    f.page_cache.fault_bytes = 2'000 * 33 * 4 * kKiB;
    r.totals[IOLENS_OP_MMAP] = op(1, 0, kS / 1000);
    r.totals[IOLENS_OP_MMAP].requested_bytes = kGiB;
    const auto m = expect_finding(r, "mmap_random");
    EXPECT_STREQ(severity_name(m.severity), "warn");
    EXPECT_EQ(m.evidence["fault_in_over_touched"], 33.0);
    EXPECT_EQ(m.evidence["worst_file"], "/data/shard-0.tar");
    EXPECT_EQ(m.evidence["mapped_bytes"], kGiB);
    EXPECT_NE(m.recommendation.find("MADV_RANDOM"), std::string::npos);
    EXPECT_NE(m.recommendation.find("pread"), std::string::npos);
}

TEST(AnalysisMmapRandom, SilentOnSequentialScansWithoutProbeOrWhenSmall) {
    auto r = clean_report();
    auto& f = r.files[0];
    f.page_cache.major_faults = 3;  // a sequential scan: readahead keeps ahead of it
    f.page_cache.fault_bytes = kGiB;
    EXPECT_EQ(find(analyze(r), "mmap_random"), nullptr);
    f.page_cache.major_faults = 2'000;  // one page per fault brought in: MADV_RANDOM already
    f.page_cache.fault_bytes = 2'000 * 4 * kKiB * 2;
    EXPECT_EQ(find(analyze(r), "mmap_random"), nullptr);
    f.page_cache.fault_bytes = 2'000 * 33 * 4 * kKiB;
    r.capture = capture(/*pagecache=*/false);
    EXPECT_EQ(find(analyze(r), "mmap_random"), nullptr);
}

// --- readahead_waste ----------------------------------------------------------

TEST(AnalysisReadaheadWaste, FiresOnUnusedReadahead) {
    auto r = clean_report();
    r.page_cache.readahead_unused_bytes = 1'228 * kMiB;  // 60% of 2 GiB
    r.files[3].page_cache.readahead_unused_bytes = 600 * kMiB;
    r.files[5].page_cache.readahead_unused_bytes = 628 * kMiB;
    auto f = expect_finding(r, "readahead_waste");
    EXPECT_STREQ(severity_name(f.severity), "high");
    EXPECT_EQ(f.evidence["readahead_unused_bytes"], 1'228 * kMiB);
    EXPECT_EQ(f.evidence["brought_in_bytes"], 2 * kGiB);
    EXPECT_EQ(f.evidence["worst_file"], "/data/shard-5.tar");
    EXPECT_NE(f.recommendation.find("read_ahead_kb"), std::string::npos);
    EXPECT_NE(f.recommendation.find("blockdev --setra"), std::string::npos);

    r.page_cache.readahead_unused_bytes = 600 * kMiB;
    f = expect_finding(r, "readahead_waste");
    EXPECT_STREQ(severity_name(f.severity), "warn");
}

TEST(AnalysisReadaheadWaste, SilentWithoutProbeOrWhenSmall) {
    auto r = clean_report();
    r.page_cache.readahead_unused_bytes = 100 * kMiB;  // 5%
    EXPECT_EQ(find(analyze(r), "readahead_waste"), nullptr);
    r.page_cache = cache(0, 32 * kMiB, 32 * kMiB, 30 * kMiB);  // too little brought in
    EXPECT_EQ(find(analyze(r), "readahead_waste"), nullptr);
    r.page_cache = cache(0, 2 * kGiB, 2 * kGiB, 2 * kGiB);
    r.capture = capture(/*pagecache=*/false);
    EXPECT_EQ(find(analyze(r), "readahead_waste"), nullptr);
}

// --- checkpoint_stall ---------------------------------------------------------

TEST(AnalysisCheckpointStall, FiresOnTheRankMainProcess) {
    auto r = clean_report();
    auto& main = r.processes[3];  // pid 200, rank 1's main process
    ASSERT_EQ(main.info.pid, 200u);
    main.ops[IOLENS_OP_SYNC] = op(10, 0, 6 * kS);
    main.ops[IOLENS_OP_SYNC].blocked_ns = 5 * kS;
    main.ops[IOLENS_OP_WRITE] = op(2'048, kMiB, 4 * kS);
    auto f = expect_finding(r, "checkpoint_stall");
    EXPECT_STREQ(severity_name(f.severity), "warn");
    EXPECT_EQ(f.evidence["rank"], 1);
    EXPECT_EQ(f.evidence["pid"], 200u);
    EXPECT_EQ(f.evidence["sync_calls"], 10u);
    EXPECT_EQ(f.evidence["write_bytes"], 2 * kGiB);
    EXPECT_EQ(f.evidence["checkpoint_share"], 0.1);
    EXPECT_EQ(f.evidence["blocked_ns"], 5 * kS);
    EXPECT_NE(f.recommendation.find("async"), std::string::npos);

    main.ops[IOLENS_OP_WRITE] = op(2'048, kMiB, 14 * kS);
    EXPECT_STREQ(severity_name(expect_finding(r, "checkpoint_stall").severity), "high");
}

TEST(AnalysisCheckpointStall, WithoutRanksUsesTheTargetProcess) {
    auto r = clean_report();
    r.ranks.clear();
    r.capture = capture(true, /*blocking=*/false);
    r.capture.pids = {100};
    r.processes[1].ops[IOLENS_OP_SYNC] = op(3, 0, 8 * kS);
    r.processes[1].ops[IOLENS_OP_WRITE] = op(100, kMiB, 2 * kS);
    const auto f = expect_finding(r, "checkpoint_stall");
    EXPECT_EQ(f.evidence["pid"], 100u);
    EXPECT_FALSE(f.evidence.contains("rank"));
    EXPECT_EQ(f.evidence["wall_ns"], 100 * kS);  // the whole capture
    EXPECT_TRUE(f.evidence["blocked_ns"].is_null());
}

TEST(AnalysisCheckpointStall, SilentWithoutFsyncOrInWorkers) {
    auto r = clean_report();
    // Long writes without a single fsync: logging or buffered output.
    r.processes[1].ops[IOLENS_OP_SYNC] = OpStats{};
    r.processes[1].ops[IOLENS_OP_WRITE] = op(2'048, kMiB, 20 * kS);
    // A DataLoader worker that writes and syncs is not the training loop.
    r.processes[2].ops[IOLENS_OP_SYNC] = op(10, 0, 20 * kS);
    EXPECT_EQ(find(analyze(r), "checkpoint_stall"), nullptr);
    // Ranks whose processes are not in the report: no crash, no finding.
    r.processes.clear();
    EXPECT_EQ(find(analyze(r), "checkpoint_stall"), nullptr);
}

// --- ordering and thresholds --------------------------------------------------

TEST(AnalysisFindings, MostSevereFirst) {
    auto r = clean_report();
    for (auto& f : r.files) f.sequential = 10, f.random = 90;   // random_access: info
    r.totals[IOLENS_OP_READ] = op(200'000, 4 * kKiB, 20 * kS);  // small_reads: warn
    r.ranks[0].critical_io_ns = 35 * kS;                        // io_stall: high (35%)
    r.page_cache.readahead_unused_bytes = 1'500 * kMiB;         // readahead_waste: high (73%)
    r.ranks[1].io_time_ns = 16 * kS;                            // rank_imbalance: warn (1.6x)
    const auto fs = analyze(r);
    // The stall follows the read pattern that explains it (the worst one).
    ASSERT_EQ(ids(fs), (std::vector<std::string>{"readahead_waste", "io_stall", "small_reads",
                                                 "rank_imbalance", "random_access"}))
        << ::testing::PrintToString(ids(fs));
    for (size_t i = 1; i < fs.size(); ++i)
        EXPECT_LE(static_cast<int>(fs[i - 1].severity), static_cast<int>(fs[i].severity));
}

TEST(AnalysisFindings, ThresholdsAreTunable) {
    auto r = clean_report();
    Thresholds t;
    t.small_read_bytes = 2 * kMiB;  // 1 MiB reads now count as small
    t.small_reads_min_calls = 1'000;
    const auto fs = analyze(r, t);
    ASSERT_EQ(ids(fs), std::vector<std::string>{"small_reads"});
}

TEST(AnalysisFindings, DocsListEveryThreshold) {
    // tests/data need not exist: go up lexically.
    const auto doc_path =
        std::filesystem::path(IOLENS_TEST_DATA_DIR).parent_path().parent_path() / "docs" / "findings.md";
    std::ifstream in(doc_path);
    ASSERT_TRUE(in) << "docs/findings.md missing";
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string doc = ss.str();
    for (const auto& [name, value] : iolens::analysis::threshold_table())
        EXPECT_NE(doc.find("`" + name + "`"), std::string::npos) << name << " not documented";
    for (const char* id :
         {"small_reads", "random_access", "io_stall", "rank_imbalance", "dataset_exceeds_cache",
          "metadata_heavy", "many_small_files", "readahead_waste", "checkpoint_stall", "self_eviction"})
        EXPECT_NE(doc.find(std::string("`") + id + "`"), std::string::npos) << id;
}
