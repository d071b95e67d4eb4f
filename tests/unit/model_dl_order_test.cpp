// Ranks, epochs and stalls do not depend on how far out of start order the
// calls were recorded: the bounded reorder buffer (model/start_order.h) and
// the sort-everything path it falls back on give the same report.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <random>
#include <thread>

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

// The records' walk on two threads (ReportBuilder::prepare_records, as `report`
// runs it: the files' pass on the reader's thread, ahead): the same report,
// records and error as one thread's walk, however the records are cut into
// spans.
TEST(DlOrder, FilePassAheadGivesTheSameReportAsOneThread) {
    std::map<uint32_t, std::map<std::string, std::string>> env = {
        {100, {{"RANK", "0"}}}, {200, {{"RANK", "1"}}}, {300, {{"RANK", "2"}}}};
    DlStream s = scrambled_job(11, 3);
    // What else the two passes share out: page-cache events (read-ahead kept,
    // evicted, faulted in, resident, an unknown kind), blocks, calls of other
    // paths and without a file, a class from a newer kernel side, an unnamed file.
    for (uint64_t f = 1; f <= 40; ++f) {
        iolens_pagecache_rec r{};
        r.dev = test::kDlDev;
        r.ino = f;
        r.pid = r.tid = 110 + f % 3;
        r.index = 0;
        r.bytes = 8 * 4096;
        r.ra_bytes = 8 * 4096;
        r.first_ns = 10 * kMs + f * 1000;
        r.ts_ns = 900 * kMs + f * 1000;
        r.flags = IOLENS_PCF_READAHEAD;
        r.kind = f % 4 == 0 ? IOLENS_PC_RESIDENT : IOLENS_PC_EVICT;
        s.buf.pagecache(r);
        r.kind = f % 5 == 0 ? 200 : IOLENS_PC_FAULT_IN;
        r.flags = 0;
        s.buf.pagecache(r);
        s.block(110 + f % 3, 20 * kMs + f, 4096);
    }
    for (int i = 0; i < 30; ++i) {
        iolens_syscall_rec r{};
        r.op = i % 10 == 9 ? 250 : IOLENS_OP_READ;
        r.flags = IOLENS_SC_HAS_FILE | IOLENS_SC_REGULAR |
                  (i % 3 == 0 ? IOLENS_PATH_IO_URING << IOLENS_SC_PATH_SHIFT : 0);
        r.pid = r.tid = 120 + i % 2;
        r.start_ns = 1000 * kMs + i * 10'000;
        r.duration_ns = 5000;
        r.ret = r.requested = 4096;
        r.offset = uint64_t(i) * 4096;
        r.dev = i % 7 == 0 ? 0 : test::kDlDev;
        r.ino = i % 7 == 0 ? 0 : 900 + i % 4;
        r.cache_in_bytes = i % 2 ? 16384 : 0;
        s.buf.syscall(r);
    }
    s.call({.pid = 120, .start = 1100 * kMs, .ino = 0, .ret = 100});
    // Runs of reads of one file (one PreparedCall stands for each run).
    std::vector<iolens_syscall_rec> run;
    for (int i = 0; i < 50; ++i) {
        iolens_syscall_rec r{};
        r.op = IOLENS_OP_READ;
        r.flags = IOLENS_SC_HAS_FILE | IOLENS_SC_REGULAR | IOLENS_SC_CACHE_ZERO;
        r.pid = r.tid = 130;
        r.start_ns = 1200 * kMs + i * 10'000;
        r.duration_ns = 900;
        r.ret = r.requested = 4096;
        r.offset = uint64_t(i % 25) * 4096;
        r.dev = test::kDlDev;
        r.ino = 950 + i / 25;
        run.push_back(r);
    }
    s.buf.syscall_runs(run);
    BuilderOptions opt;
    opt.max_files = 5;  // most files' tables come from the log pass
    const auto cap = test::dl_capture(2000 * kMs, {"pagecache"});
    const Report a = test::build(s, cap, env, opt);
    ASSERT_EQ(a.ranks.size(), 3u);
    const std::string want = report::report_to_json_text(a);

    // The records cut at record boundaries into spans of 1 to ~300 records.
    const auto all = s.bytes();
    std::vector<std::span<const std::byte>> spans;
    std::mt19937_64 rng(5);
    for (size_t off = 0; off < all.size();) {
        size_t end = off;
        for (size_t n = 1 + rng() % 300; n && end < all.size(); --n) {
            iolens_rec_hdr h;
            std::memcpy(&h, all.data() + end, sizeof h);
            end += h.size;
        }
        spans.push_back(all.subspan(off, end - off));
        off = end;
    }
    ASSERT_GT(spans.size(), 5u);
    // Damage at the end: both walks stop at the same record.
    const std::vector<std::byte> tail(7, std::byte{0xff});
    spans.push_back(tail);

    ReportBuilder one(opt);
    one.set_capture(cap);
    for (const auto& [pid, vars] : env) one.add_process_env(pid, vars);
    std::vector<std::string> errors_one;
    for (const auto& sp : spans)
        if (auto r = one.add_records(sp); !r) errors_one.push_back(r.error().message);

    ReportBuilder two(opt);
    two.set_capture(cap);
    for (const auto& [pid, vars] : env) two.add_process_env(pid, vars);
    two.prepare_ahead();
    std::atomic<size_t> prepared{0};
    std::thread ahead([&] {
        for (const auto& sp : spans) {
            two.prepare_records(sp);
            prepared.fetch_add(1, std::memory_order_release);
        }
    });
    std::vector<std::string> errors_two;
    for (size_t i = 0; i < spans.size(); ++i) {
        while (prepared.load(std::memory_order_acquire) <= i) std::this_thread::yield();
        if (auto r = two.add_records(spans[i]); !r) errors_two.push_back(r.error().message);
    }
    ahead.join();
    EXPECT_EQ(one.records_seen(), two.records_seen());
    EXPECT_EQ(one.records_skipped(), two.records_skipped());
    EXPECT_GT(one.records_skipped(), 0u);
    ASSERT_EQ(errors_one.size(), 1u);
    EXPECT_EQ(errors_one, errors_two);
    const Report b = two.take();
    const std::string got = report::report_to_json_text(b);
    EXPECT_EQ(report::report_to_json_text(one.finish()), got);
    // Cut or not, the spans give the whole stream's report (the damage adds nothing).
    EXPECT_EQ(want, got);
}

}  // namespace
