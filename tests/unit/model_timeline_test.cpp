// The per-rank timeline (Report::timeline, for the HTML report): bins of the
// capture, each rank's read bytes, I/O time and critical I/O time within each
// bin, measured as the whole-capture figures are, so the bins add up to them.
#include <gtest/gtest.h>

#include <numeric>

#include "model/replay.h"
#include "model_rank_records.h"
#include "report/json_renderer.h"

using namespace iolens;
using namespace iolens::model;
using test::DlStream;
using test::kMs;

namespace {

uint64_t sum(const std::vector<uint64_t>& v) { return std::accumulate(v.begin(), v.end(), uint64_t{0}); }

BuilderOptions with_bins(size_t n) {
    BuilderOptions o;
    o.timeline_bins = n;
    return o;
}

TEST(Timeline, OffUnlessAskedFor) {
    DlStream s;
    s.fork(100, 1, 0).call({.pid = 100, .start = 10 * kMs, .ino = 1});
    EXPECT_FALSE(test::build(s, test::dl_capture(100 * kMs), {{100, {{"RANK", "0"}}}}).timeline);
}

TEST(Timeline, BinsSplitIoAndCriticalTimeAndAddUpToTheRanksTotals) {
    DlStream s;
    s.fork(100, 1, 0).fork(101, 100, 1 * kMs).fork(200, 1, 0);
    // Capture [1 ns, 100 ms) in 10 bins of 10 ms (rounded up: 9.9999999 ms).
    s.call({.pid = 100, .start = 5 * kMs, .dur = 10 * kMs, .ino = 1, .ret = 1000});   // main: [5,15)
    s.call({.pid = 101, .start = 12 * kMs, .dur = 20 * kMs, .ino = 2, .ret = 3000});  // worker: [12,32)
    s.call({.pid = 101, .start = 95 * kMs, .dur = 30 * kMs, .ino = 2, .ret = 500});   // runs past the end
    s.offcpu(100, 40 * kMs, 50 * kMs);  // no I/O in flight: not critical
    s.offcpu(100, 20 * kMs, 25 * kMs);  // while the worker reads: critical
    s.call({.pid = 200, .start = 50 * kMs, .dur = 1 * kMs, .ino = 3, .ret = 8000});
    const auto r = test::build(s, test::dl_capture(100 * kMs),
                               {{100, {{"RANK", "0"}}}, {200, {{"RANK", "1"}}}}, with_bins(10));
    ASSERT_TRUE(r.timeline);
    const Timeline& t = *r.timeline;
    EXPECT_EQ(t.bins, 10u);
    EXPECT_EQ(t.start_ns, 1u);
    EXPECT_EQ(t.bin_ns, 10 * kMs);  // ceil((100 ms - 1 ns) / 10)
    ASSERT_EQ(t.ranks.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
        const auto& rt = t.ranks[i];
        EXPECT_EQ(rt.rank, r.ranks[i].rank);
        ASSERT_EQ(rt.read_bytes.size(), 10u);
        ASSERT_EQ(rt.io_ns.size(), 10u);
        ASSERT_EQ(rt.critical_ns.size(), 10u);
        EXPECT_EQ(sum(rt.read_bytes), r.ranks[i].ops[IOLENS_OP_READ].bytes);
        EXPECT_EQ(sum(rt.io_ns), r.ranks[i].io_time_ns);
        EXPECT_EQ(sum(rt.critical_ns), r.ranks[i].critical_io_ns);
        for (size_t b = 0; b < 10; ++b) EXPECT_LE(rt.critical_ns[b], rt.io_ns[b]);
    }
    const auto& r0 = t.ranks[0];
    // Bins start at 1 ns: [1, 10ms+1), [10ms+1, 20ms+1), ...
    EXPECT_EQ(r0.read_bytes[0], 1000u);
    EXPECT_EQ(r0.read_bytes[1], 3000u);
    EXPECT_EQ(r0.read_bytes[9], 500u);
    // I/O union [5,32) and [95,125): bin 0 [1ns,10ms+1ns) holds [5ms,10ms+1ns).
    EXPECT_EQ(r0.io_ns[0], 5 * kMs + 1);
    EXPECT_EQ(r0.io_ns[1], 10 * kMs);
    EXPECT_EQ(r0.io_ns[2], 10 * kMs);
    EXPECT_EQ(r0.io_ns[3], 2 * kMs - 1);
    EXPECT_EQ(r0.io_ns[4], 0u);
    // The last bin takes the call's time past the capture's end too.
    EXPECT_EQ(r0.io_ns[9], 30 * kMs);
    // Critical: main's own call [5,15) and its sleep [20,25) during the worker's read.
    EXPECT_EQ(r0.critical_ns[0], 5 * kMs + 1);
    EXPECT_EQ(r0.critical_ns[1], 5 * kMs - 1 + 1);  // [10ms+1, 15ms) and [20ms, 20ms+1)
    EXPECT_EQ(r0.critical_ns[2], 5 * kMs - 1);
    EXPECT_EQ(r0.critical_ns[4], 0u);
    const auto& r1 = t.ranks[1];
    EXPECT_EQ(r1.read_bytes[4], 8000u);  // starts at 50 ms, in [40ms+1, 50ms+1)
    EXPECT_EQ(r1.io_ns[4], 1u);
    EXPECT_EQ(r1.io_ns[5], 1 * kMs - 1);
}

TEST(Timeline, OutOfOrderCallsGiveTheSameBins) {
    // Calls arriving later than the reorder buffer holds take the sorting path.
    DlStream s;
    s.fork(100, 1, 0);
    for (int i = 9; i >= 0; --i)
        s.call({.pid = 100, .start = (i * 10 + 1) * kMs, .dur = 2 * kMs, .ino = 1, .ret = 100 + i});
    auto opt = with_bins(10);
    opt.reorder_calls = 2;
    const auto r = test::build(s, test::dl_capture(100 * kMs), {{100, {{"RANK", "0"}}}}, opt);
    ASSERT_TRUE(r.timeline);
    const auto& rt = r.timeline->ranks.at(0);
    for (size_t b = 0; b < 10; ++b) {
        EXPECT_EQ(rt.read_bytes[b], 100 + b) << b;
        EXPECT_EQ(rt.io_ns[b], 2 * kMs) << b;
    }
    EXPECT_EQ(sum(rt.io_ns), r.ranks[0].io_time_ns);
}

TEST(Timeline, ChangesNothingElseInTheReport) {
    // The HTML report's model must be the JSON report's: the timeline's sweep
    // only adds Report::timeline.
    DlStream s;
    s.fork(100, 1, 0).fork(101, 100, 1 * kMs).fork(200, 1, 0);
    s.marker(100, 2 * kMs, "epoch/1").marker(200, 2 * kMs, "epoch/1");
    for (uint64_t i = 0; i < 50; ++i) {
        s.call({.pid = 101, .start = (3 + i) * kMs, .dur = kMs / 2, .ino = 1 + i % 5, .ret = 4096});
        s.call({.pid = 200, .start = (3 + i) * kMs + 7, .dur = kMs / 3, .ino = 10 + i % 3, .ret = 8192});
    }
    s.marker(100, 60 * kMs, "epoch/2").marker(200, 60 * kMs, "epoch/2");
    s.offcpu(100, 10 * kMs, 20 * kMs);
    const std::map<uint32_t, std::map<std::string, std::string>> env = {{100, {{"RANK", "0"}}},
                                                                        {200, {{"RANK", "1"}}}};
    const auto plain = test::build(s, test::dl_capture(100 * kMs), env);
    const auto with = test::build(s, test::dl_capture(100 * kMs), env, with_bins(200));
    ASSERT_TRUE(with.timeline);
    EXPECT_EQ(report::report_to_json_text(plain), report::report_to_json_text(with));
    EXPECT_EQ(with.timeline->ranks.at(1).read_bytes.size(), 200u);
    EXPECT_EQ(sum(with.timeline->ranks.at(1).read_bytes), 50u * 8192);
}

}  // namespace
