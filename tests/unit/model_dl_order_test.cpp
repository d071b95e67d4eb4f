// Ranks, epochs and stalls do not depend on how far out of start order the
// calls were recorded: the bounded reorder buffer (model/start_order.h) and
// the sort-everything path it falls back on give the same report.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "model_rank_records.h"
#include "report/json_renderer.h"

using namespace iolens;
using namespace iolens::model;
using test::DlStream;
using test::kMs;

namespace {

// Two ranks (or `ranks`), 3 workers each, 3 epochs of a shuffled 40-file dataset read in
// chunks by several threads; calls recorded in completion order (long calls
// come after shorter ones that started later), main threads off CPU.
DlStream scrambled_job(uint64_t seed, uint32_t ranks = 2) {
    std::mt19937_64 rng(seed);
    DlStream s;
    std::vector<DlStream::Call> calls;
    for (uint32_t rank = 0; rank < ranks; ++rank) {
        const uint32_t root = 100 + rank * 100;
        s.fork(root, 1, 1 * kMs);
        for (int f = 1; f <= 40; ++f) s.file(f, "/data/" + std::to_string(f) + ".bin");
        uint64_t t = 10 * kMs;
        for (int e = 0; e < 3; ++e) {
            const uint32_t w0 = root + 10 + e * 3;
            for (uint32_t w = w0; w < w0 + 3; ++w) s.fork(w, root, t);
            std::vector<int> order(40);
            for (int f = 0; f < 40; ++f) order[f] = f + 1;
            std::shuffle(order.begin(), order.end(), rng);
            for (int i = 0; i < 40; ++i) {
                const uint32_t w = w0 + i % 3;
                const uint64_t at = t + rng() % (2 * kMs);
                calls.push_back({.pid = w,
                                 .op = IOLENS_OP_OPEN,
                                 .start = at,
                                 .dur = 100,
                                 .ino = uint64_t(order[i]),
                                 .ret = 3});
                for (int c = 0; c < 5; ++c)
                    calls.push_back({.pid = w,
                                     .tid = w + (c % 2) * 1000,
                                     .start = at + 200 + c * 30'000,
                                     .dur = 1000 + rng() % 60'000,
                                     .ino = uint64_t(order[i]),
                                     .ret = 4096,
                                     .offset = uint64_t(c) * 4096,
                                     .cache_in = c == 0 ? 8192u : 0u});
                t += 50'000;
            }
            s.offcpu(root, t - 30 * kMs, t);
            t += 2 * kMs;
            for (uint32_t w = w0; w < w0 + 3; ++w) s.exit(w, root, t);
            t += 1 * kMs;
        }
    }
    // Completion order.
    std::stable_sort(calls.begin(), calls.end(),
                     [](const auto& a, const auto& b) { return a.start + a.dur < b.start + b.dur; });
    for (const auto& c : calls) s.call(c);
    return s;
}

TEST(DlOrder, ReorderBufferAndFullSortGiveTheSameReport) {
    const std::map<uint32_t, std::map<std::string, std::string>> env = {{100, {{"RANK", "0"}}},
                                                                        {200, {{"RANK", "1"}}}};
    for (uint64_t seed = 1; seed <= 5; ++seed) {
        const DlStream s = scrambled_job(seed);
        BuilderOptions buffered, fallback;
        fallback.reorder_calls = 1;  // too small: every late call forces the full sort
        const Report a = test::build(s, test::dl_capture(2000 * kMs, {"pagecache"}), env, buffered);
        const Report b = test::build(s, test::dl_capture(2000 * kMs, {"pagecache"}), env, fallback);
        ASSERT_EQ(a.ranks.size(), 2u);
        EXPECT_EQ(a.epochs.size(), 3u) << seed;
        EXPECT_GT(a.ranks[0].io_time_ns, 0u);
        EXPECT_EQ(report::report_to_json_text(a), report::report_to_json_text(b)) << seed;
    }
}

// The walks of the log run on several threads (BuilderOptions::threads), the
// ranks split between them, beside the split's and the listed files' walks:
// the report is the one a single thread makes, with as many ranks as threads,
// more, or fewer, and through the full sort too.
TEST(DlOrder, ThreadsGiveTheSameReportAsOne) {
    std::map<uint32_t, std::map<std::string, std::string>> env = {
        {100, {{"RANK", "0"}}}, {200, {{"RANK", "1"}}}, {300, {{"RANK", "2"}}}};
    const DlStream s = scrambled_job(7, 3);
    for (const size_t reorder : {size_t{1} << 16, size_t{1}}) {
        BuilderOptions one;
        one.reorder_calls = reorder;
        one.threads = 1;
        one.max_files = 7;  // most files' tables come from the log pass
        one.timeline_bins = 16;
        const Report a = test::build(s, test::dl_capture(2000 * kMs, {"pagecache"}), env, one);
        ASSERT_EQ(a.ranks.size(), 3u);
        EXPECT_EQ(a.epochs.size(), 3u);
        const std::string want = report::report_to_json_text(a);
        for (const size_t threads : {size_t{2}, size_t{3}, size_t{4}}) {
            BuilderOptions many = one;
            many.threads = threads;
            const Report b = test::build(s, test::dl_capture(2000 * kMs, {"pagecache"}), env, many);
            EXPECT_EQ(want, report::report_to_json_text(b)) << threads << " threads, reorder " << reorder;
        }
    }
}

}  // namespace
