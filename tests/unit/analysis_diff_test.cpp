// `iolens diff` on synthetic JSON reports: verdicts against the runs' own
// noise, findings resolved and new, files only in one run, histograms side by
// side, commands that differ, and reports this iolens cannot read.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "analysis/diff.h"
#include "report/diff_renderer.h"

namespace iolens::analysis {
namespace {

using nlohmann::json;

json hist(uint64_t lo, uint64_t count, uint64_t p50, uint64_t p99) {
    return {{"buckets", json::array({{{"lo", lo}, {"hi", lo * 2}, {"count", count}}})},
            {"count", count},
            {"p50", p50},
            {"p99", p99}};
}

// A run of `epochs` epochs of `epoch_ns` each (the first `first_ns`), rank
// 0 stalled `stall` of its time, `findings` ids at warn.
json run(uint64_t epoch_ns, double stall, std::vector<std::string> findings, uint64_t first_ns = 0,
         size_t epochs = 3) {
    json j = {{"schema", "iolens.report"}, {"version", 1}};
    j["capture"] = {
        {"duration_ns", 0}, {"events", 1000}, {"lost_events", 0}, {"command", {"python3", "train.py"}}};
    json es = json::array();
    uint64_t total = 0;
    for (size_t i = 1; i <= epochs; ++i) {
        const uint64_t d = i == 1 && first_ns ? first_ns : epoch_ns;
        total += d;
        es.push_back({{"index", i},
                      {"duration_ns", d},
                      {"critical_io_share", stall},
                      {"page_cache", {{"hit_ratio", 0.9}}},
                      {"ranks", json::array({{{"rank", 0}, {"critical_io_share", stall}}})}});
    }
    j["capture"]["duration_ns"] = total;
    j["epochs"] = es;
    j["ranks"] = json::array(
        {{{"rank", 0}, {"critical_io_share", stall}, {"io_time_ns", total / 4}, {"wall_ns", total}}});
    j["totals"] = {{"read",
                    {{"calls", 100},
                     {"bytes", 100 << 20},
                     {"time_ns", total / 4},
                     {"size_bytes", hist(1 << 20, 100, 1 << 20, 1 << 20)},
                     {"latency_ns", hist(1 << 20, 100, 1'500'000, 3'000'000)}}}};
    j["page_cache"] = {{"hit_ratio", 0.9}, {"miss_bytes", 10 << 20}};
    j["files_total"] = 2;
    j["files"] = json::array({{{"path", "/data/a.bin"}, {"software", false}},
                              {{"path", "/usr/lib/libc.so.6"}, {"software", true}}});
    json fs = json::array();
    for (const auto& id : findings)
        fs.push_back({{"id", id}, {"severity", "warn"}, {"title", id + " title"}});
    j["findings"] = fs;
    return j;
}

const DiffRow& row(const ReportDiff& d, const std::string& name) {
    for (const auto& r : d.rows)
        if (r.name == name) return r;
    static const DiffRow none{};
    ADD_FAILURE() << "no row " << name;
    return none;
}

TEST(Diff, ARunAgainstItselfChangesNothing) {
    const json a = run(1'000'000'000, 0.4, {"io_stall"});
    const auto d = diff_reports({"a", a}, {"b", a});
    EXPECT_EQ(d.headline.rfind("no change beyond noise", 0), 0u) << d.headline;
    for (const auto& r : d.rows) EXPECT_EQ(r.verdict, "same") << r.name;
    ASSERT_EQ(d.findings.size(), 1u);
    EXPECT_EQ(d.findings[0].status, "unchanged");
    EXPECT_TRUE(d.files_added.empty());
    EXPECT_TRUE(d.files_gone.empty());
}

TEST(Diff, AFasterRunWithTheStallGoneSaysBetterAndResolved) {
    const json a = run(1'000'000'000, 0.40, {"io_stall", "small_reads"});
    const json b = run(600'000'000, 0.02, {"small_reads"});
    const auto d = diff_reports({"a", a}, {"b", b});
    EXPECT_EQ(row(d, "wall time").verdict, "better");
    EXPECT_NEAR(*row(d, "wall time").change, -0.4, 1e-9);
    EXPECT_EQ(row(d, "rank 0 stall share").verdict, "better");
    EXPECT_EQ(row(d, "epoch 2 time").verdict, "better");
    EXPECT_EQ(row(d, "read calls").verdict, "same");
    EXPECT_NE(d.headline.find("B is 40.0% faster than A"), std::string::npos) << d.headline;
    EXPECT_NE(d.headline.find("rank 0 stall share 40% -> 2% (better)"), std::string::npos) << d.headline;
    EXPECT_NE(d.headline.find("resolved: io_stall"), std::string::npos) << d.headline;
    ASSERT_EQ(d.findings.size(), 2u);
    EXPECT_EQ(d.findings[0].id, "small_reads");  // B's findings first
    EXPECT_EQ(d.findings[0].status, "unchanged");
    EXPECT_EQ(d.findings[1].status, "resolved");
    // The other way round: slower, and the stall is new.
    const auto back = diff_reports({"b", b}, {"a", a});
    EXPECT_EQ(row(back, "wall time").verdict, "worse");
    EXPECT_NE(back.headline.find("slower"), std::string::npos) << back.headline;
    EXPECT_NE(back.headline.find("new: io_stall"), std::string::npos) << back.headline;
}

// A difference smaller than the runs' own spread between epochs is noise.
TEST(Diff, ChangesInsideTheEpochSpreadAreWithinNoise) {
    json a = run(1'000'000'000, 0.1, {});
    a["epochs"][1]["duration_ns"] = 1'100'000'000;  // epochs 2 and 3 differ by 10%
    const json b = run(1'050'000'000, 0.1, {});     // 5% slower epochs
    const auto d = diff_reports({"a", a}, {"b", b});
    EXPECT_NEAR(d.noise, 0.1 / 1.05, 1e-3);
    EXPECT_EQ(row(d, "epoch 3 time").verdict, "within noise");
    EXPECT_EQ(d.headline.rfind("no change beyond noise", 0), 0u) << d.headline;
    // Without epochs to measure it, the default: 5%.
    const auto none =
        diff_reports({"a", run(1'000'000'000, 0.1, {}, 0, 1)}, {"b", run(1'030'000'000, 0.1, {}, 0, 1)});
    EXPECT_DOUBLE_EQ(none.noise, kDefaultNoise);
    EXPECT_EQ(row(none, "wall time").verdict, "within noise");
}

TEST(Diff, EpochsOnlyOneRunHasFilesAndCommandsAreNamed) {
    json a = run(1'000'000'000, 0.1, {});
    json b = run(1'000'000'000, 0.1, {}, 0, 4);
    b["files"].push_back({{"path", "/data/b.bin"}, {"software", false}});
    b["files"][0]["path"] = "/scratch/a.bin";
    b["capture"]["command"] = {"python3", "train.py", "--workers", "8"};
    const auto d = diff_reports({"a", a}, {"b", b});
    EXPECT_EQ(row(d, "epoch 4 time").verdict, "only in B");
    EXPECT_EQ(d.files_added, (std::vector<std::string>{"/data/b.bin", "/scratch/a.bin"}));
    EXPECT_EQ(d.files_gone, (std::vector<std::string>{"/data/a.bin"}));  // software files are not listed
    ASSERT_FALSE(d.notes.empty());
    EXPECT_NE(d.notes[0].find("commands differ"), std::string::npos) << d.notes[0];
    EXPECT_NE(d.notes[0].find("--workers 8"), std::string::npos) << d.notes[0];
}

TEST(Diff, HistogramsSideBySide) {
    json a = run(1'000'000'000, 0.1, {});
    json b = run(1'000'000'000, 0.1, {});
    b["totals"]["read"]["size_bytes"] = hist(4096, 25'600, 4096, 4096);
    const auto d = diff_reports({"a", a}, {"b", b});
    ASSERT_EQ(d.histograms.size(), 2u);
    const auto& h = d.histograms[0];
    EXPECT_EQ(h.name, "read size");
    ASSERT_EQ(h.buckets.size(), 2u);
    EXPECT_EQ(h.buckets[0].lo, 4096u);
    EXPECT_EQ(h.buckets[0].a, 0u);
    EXPECT_EQ(h.buckets[0].b, 25'600u);
    EXPECT_EQ(h.buckets[1].a, 100u);
    EXPECT_EQ(h.p50_a, 1u << 20);
    EXPECT_EQ(h.p50_b, 4096u);
    const std::string text = report::diff_to_text(d);
    EXPECT_NE(text.find("p50 1.00 MiB -> 4.00 KiB"), std::string::npos) << text;
    const json j = report::diff_to_json(d);
    EXPECT_EQ(j["schema"], "iolens.diff");
    EXPECT_EQ(j["histograms"][0]["buckets"][0]["b"], 25'600);
}

TEST(Diff, ReportsThisIolensCannotReadAreRefusedClearly) {
    const std::string path = testing::TempDir() + "/iolens-diff-test.json";
    const auto write = [&](const json& j) { std::ofstream(path) << j.dump(); };
    write(run(1, 0, {}));
    EXPECT_TRUE(load_diff_side(path));
    json newer = run(1, 0, {});
    newer["version"] = 99;
    write(newer);
    auto r = load_diff_side(path);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("newer iolens"), std::string::npos) << r.error().message;
    write({{"traceEvents", json::array()}});
    r = load_diff_side(path);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("not an iolens report"), std::string::npos) << r.error().message;
    std::ofstream(path) << "garbage that is neither";
    EXPECT_FALSE(load_diff_side(path));
    std::remove(path.c_str());
}

}  // namespace
}  // namespace iolens::analysis
