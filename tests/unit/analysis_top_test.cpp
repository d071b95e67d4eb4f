// `iolens top`'s frame from two snapshots of the live model: rates over the
// interval, exact interval and total figures, the current epoch and the
// stall share of the interval per rank, the busiest rows first.
#include <gtest/gtest.h>

#include "analysis/top.h"
#include "report/top_renderer.h"

namespace iolens::analysis {
namespace {

model::Report snapshot(uint64_t read_bytes, uint64_t calls, uint64_t wall_ns, uint64_t critical_ns,
                       uint32_t epoch) {
    model::Report r;
    r.totals[IOLENS_OP_READ].bytes = read_bytes;
    r.totals[IOLENS_OP_READ].calls = calls;
    model::RankStats k;
    k.rank = 0;
    k.ops = r.totals;
    k.wall_ns = wall_ns;
    k.critical_io_ns = critical_ns;
    r.ranks.push_back(k);
    for (uint32_t e = 1; e <= epoch; ++e) {
        model::EpochStats es;
        es.index = e;
        es.ranks.push_back({});
        r.epochs.push_back(es);
    }
    for (uint32_t pid : {10u, 11u}) {
        model::ProcessStats p;
        p.info.pid = pid;
        p.info.comm = "w";
        p.ops[IOLENS_OP_READ].bytes = pid == 11 ? read_bytes : 0;
        r.processes.push_back(p);
    }
    r.page_cache.hit_bytes = read_bytes / 2;
    r.page_cache.miss_bytes = read_bytes / 2;
    return r;
}

TEST(TopFrame, RatesOverTheIntervalAndExactTotals) {
    const auto a = snapshot(100 << 20, 100, 1'000'000'000, 100'000'000, 1);
    const auto b = snapshot(300 << 20, 300, 2'000'000'000, 600'000'000, 2);
    const auto f = make_top_frame(a, b, 500'000'000, TopView::Ranks);  // 0.5 s
    EXPECT_EQ(f.interval_read_bytes, 200u << 20);
    EXPECT_EQ(f.read_bytes, 300u << 20);
    EXPECT_EQ(f.interval_calls, 200u);
    EXPECT_DOUBLE_EQ(f.read_bps, 400.0 * (1 << 20));
    EXPECT_DOUBLE_EQ(f.calls_ps, 400.0);
    ASSERT_TRUE(f.hit_ratio);
    EXPECT_DOUBLE_EQ(*f.hit_ratio, 0.5);
    ASSERT_EQ(f.rows.size(), 1u);
    EXPECT_EQ(f.rows[0].name, "rank 0");
    EXPECT_EQ(f.rows[0].note, "epoch 2");
    ASSERT_TRUE(f.rows[0].stall_share);
    EXPECT_DOUBLE_EQ(*f.rows[0].stall_share, 0.5);  // 500 ms of the interval's 1 s of wall

    // The first frame compares with nothing: everything so far is its interval.
    const auto first = make_top_frame(model::Report{}, a, 1'000'000'000, TopView::Processes);
    EXPECT_EQ(first.interval_read_bytes, 100u << 20);
    ASSERT_EQ(first.rows.size(), 2u);
    EXPECT_EQ(first.rows[0].name, "11 w");  // the busy one first

    report::TopLayout layout{100, 12, false, 0};
    const auto lines = report::top_lines(f, layout);
    EXPECT_LE(lines.size(), 12u);
    for (const auto& l : lines) EXPECT_LE(l.size(), 100u) << l;
    layout.batch = true;
    layout.batch_rows = 20;
    std::string all;
    for (const auto& l : report::top_lines(f, layout)) all += l + "\n";
    EXPECT_NE(all.find("interval read_bytes=209715200"), std::string::npos) << all;
    EXPECT_NE(all.find("epoch 2, stall 50.0%"), std::string::npos) << all;
}

}  // namespace
}  // namespace iolens::analysis
