// The JSON keys and terminal tables of ranks, epochs and rank imbalance.
#include <gtest/gtest.h>

#include <sstream>

#include "model_rank_records.h"
#include "report/json_renderer.h"
#include "report/terminal_renderer.h"
#include "report/text_format.h"

using namespace iolens;
using test::DlStream;
using test::kMs;

namespace {

model::Report two_rank_report(std::vector<std::string> probes = {"pagecache", "block"}) {
    DlStream s;
    s.fork(100, 1, 1 * kMs).fork(200, 1, 1 * kMs).fork(101, 100, 2 * kMs);
    s.marker(100, 10 * kMs, "epoch/0").marker(100, 50 * kMs, "epoch/1");
    s.marker(100, 12 * kMs, "step/1");
    s.call({.pid = 101, .start = 20 * kMs, .dur = 3 * kMs, .ino = 1, .ret = 1 << 20, .cache_in = 1 << 20});
    s.call({.pid = 200, .start = 21 * kMs, .dur = 9 * kMs, .ino = 2, .ret = 1 << 21, .cache_in = 1 << 21});
    s.call({.pid = 101, .start = 60 * kMs, .ino = 1, .ret = 1 << 20});
    s.call({.pid = 200, .start = 61 * kMs, .ino = 2, .ret = 1 << 21});
    s.offcpu(100, 19 * kMs, 25 * kMs);
    return test::build(s, test::dl_capture(100 * kMs, probes),
                       {{100, {{"RANK", "0"}, {"WORLD_SIZE", "2"}}}, {200, {{"RANK", "1"}}}});
}

TEST(RenderRankJson, KeysAndNulls) {
    const auto j = report::report_to_json(two_rank_report());
    ASSERT_TRUE(j.contains("ranks"));
    ASSERT_EQ(j["ranks"].size(), 2u);
    const auto& r0 = j["ranks"][0];
    for (const char* k :
         {"rank", "local_rank", "world_size", "pids", "ops", "page_cache", "block", "wall_ns", "io_time_ns",
          "critical_io_ns", "io_time_share", "critical_io_share", "threads", "rank_source"})
        EXPECT_TRUE(r0.contains(k)) << k;
    EXPECT_EQ(r0["rank"], 0);
    EXPECT_TRUE(r0["local_rank"].is_null());
    EXPECT_EQ(r0["world_size"], 2);
    EXPECT_EQ(r0["pids"], nlohmann::json({100, 101}));
    EXPECT_EQ(r0["critical_io_ns"], 3 * kMs);  // off CPU [19,25) ∩ worker read [20,23)
    EXPECT_EQ(r0["threads"][0]["tid"], 101);
    EXPECT_TRUE(r0["page_cache"].is_object());

    ASSERT_EQ(j["epochs"].size(), 2u);
    const auto& e = j["epochs"][0];
    for (const char* k :
         {"index", "source", "start_ns", "end_ns", "steps", "ops", "page_cache", "block", "ranks"})
        EXPECT_TRUE(e.contains(k)) << k;
    EXPECT_EQ(e["index"], 1);
    EXPECT_EQ(e["source"], "marker");
    EXPECT_EQ(e["steps"], 1);
    EXPECT_EQ(e["page_cache"]["hit_ratio"], 0.0);
    EXPECT_EQ(j["epochs"][1]["page_cache"]["hit_ratio"], 1.0);
    ASSERT_EQ(e["ranks"].size(), 2u);
    for (const char* k : {"rank", "ops", "page_cache", "block", "wall_ns", "io_time_ns", "critical_io_ns"})
        EXPECT_TRUE(e["ranks"][1].contains(k)) << k;
    EXPECT_EQ(e["ranks"][1]["io_time_ns"], 9 * kMs);

    const auto& im = j["rank_imbalance"];
    EXPECT_EQ(im["straggler_rank"], 1);
    for (const char* k : {"min", "max", "mean", "max_over_mean"}) {
        EXPECT_TRUE(im["read_bytes"].contains(k)) << k;
        EXPECT_TRUE(im["io_time_ns"].contains(k)) << k;
    }

    // Without the probes, their objects are null, the stall figures are not.
    const auto bare = report::report_to_json(two_rank_report({}));
    EXPECT_TRUE(bare["ranks"][0]["page_cache"].is_null());
    EXPECT_TRUE(bare["ranks"][0]["block"].is_null());
    EXPECT_TRUE(bare["epochs"][0]["page_cache"].is_null());
    EXPECT_TRUE(bare["epochs"][0]["ranks"][0]["block"].is_null());
    EXPECT_EQ(bare["ranks"][1]["io_time_ns"], 9 * kMs + 1000);
}

TEST(RenderRankJson, SingleProcessHasDefaultRankAndNoImbalance) {
    DlStream s;
    s.call({.pid = 100, .start = 20 * kMs, .ino = 1});
    const auto j = report::report_to_json(test::build(s, test::dl_capture(100 * kMs)));
    ASSERT_EQ(j["ranks"].size(), 1u);
    EXPECT_EQ(j["ranks"][0]["rank_source"], "default");
    EXPECT_TRUE(j["rank_imbalance"].is_null());
    EXPECT_TRUE(j["epochs"].empty());
}

TEST(RenderRankTerminal, TablesFit80Columns) {
    for (const auto& probes : {std::vector<std::string>{"pagecache", "block"}, std::vector<std::string>{}}) {
        std::ostringstream out;
        report::render_terminal(two_rank_report(probes), out);
        const std::string text = out.str();
        EXPECT_NE(text.find("Epochs"), std::string::npos);
        EXPECT_NE(text.find("Ranks"), std::string::npos);
        EXPECT_NE(text.find("straggler: rank 1"), std::string::npos);
        EXPECT_NE(text.find("hit%"), std::string::npos);
        std::istringstream lines(text);
        std::string line;
        while (std::getline(lines, line)) EXPECT_LE(report::display_width(line), 80u) << line;
    }
    std::ostringstream out;
    report::render_terminal(two_rank_report(), out);
    // Epoch 1 cold (0% hits), epoch 2 warm (100%).
    EXPECT_NE(out.str().find("0.0%"), std::string::npos);
    EXPECT_NE(out.str().find("100.0%"), std::string::npos);
}

}  // namespace
