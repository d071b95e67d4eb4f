// The compact forms behind the DL attribution give exactly what the full
// per-call forms gave: CallLog and BlockLog round trip, the reorder buffer hands calls on
// in stable start order, StallSweep equals the union of sorted intervals, and
// DataReadLog keeps a subsequence of the reads that infers the same epochs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>

#include "model/call_log.h"
#include "model/dl_log.h"
#include "model/epochs.h"
#include "model/intervals.h"
#include "model/stalls.h"
#include "model/start_order.h"

using namespace iolens::model;

namespace {

CallEvent random_call(std::mt19937_64& rng, uint64_t& t) {
    CallEvent e;
    const auto pick = [&](uint64_t n) { return rng() % n; };
    t += pick(5000);
    e.start_ns = pick(4) == 0 ? t - pick(std::min<uint64_t>(t, 100'000)) : t;  // some arrive late
    e.duration_ns = pick(3) == 0 ? 0 : pick(uint64_t{1} << (pick(40) + 1));
    e.bytes = pick(2) ? 0 : pick(16) ? pick(1u << 20) : pick(uint64_t{1} << 34);  // some past 4 GiB
    e.requested = pick(2) ? e.bytes : rng();
    e.blocked_ns = pick(3) ? 0 : rng() >> pick(64);
    switch (pick(5)) {  // the page-cache split's shapes (call_log.cpp), and any other
        case 0:
            e.hit_bytes = static_cast<uint32_t>(rng());
            e.miss_bytes = pick(2) ? 0 : UINT32_MAX;
            e.readahead_bytes = static_cast<uint32_t>(pick(100));
            break;
        case 1:  // all cached (or bytes past 4 GiB, saturated)
            e.hit_bytes = static_cast<uint32_t>(std::min<uint64_t>(e.bytes, UINT32_MAX));
            e.readahead_bytes = pick(4) ? 0 : 1;
            break;
        case 2:  // none cached
            e.miss_bytes = static_cast<uint32_t>(std::min<uint64_t>(e.bytes, UINT32_MAX));
            e.readahead_bytes = static_cast<uint32_t>(pick(2) ? e.miss_bytes : pick(1u << 20));
            e.hit_bytes = pick(8) ? 0 : 1;
            break;
        default:
            break;
    }
    static uint32_t prev_tid = 0;
    e.pid = 100 + static_cast<uint32_t>(pick(3));
    e.tid = pick(2) ? e.pid : pick(2) ? prev_tid : static_cast<uint32_t>(rng());
    prev_tid = e.tid;
    e.packed = static_cast<uint32_t>(pick(3) ? pick(16) : rng());
    return e;
}

TEST(CallLog, RoundTripsEveryFieldAcrossBlocks) {
    std::mt19937_64 rng(1);
    std::vector<CallEvent> in;
    CallLog log;
    uint64_t t = 1'000'000;
    // Enough calls to fill several blocks; extreme values included.
    for (int i = 0; i < 300'000; ++i) {
        CallEvent e = random_call(rng, t);
        if (i == 7) e.start_ns = 0;
        if (i == 8) e.start_ns = UINT64_MAX, e.duration_ns = UINT64_MAX, e.bytes = UINT64_MAX;
        in.push_back(e);
        log.push_back(e);
    }
    EXPECT_EQ(log.size(), in.size());
    EXPECT_GT(log.bytes(), CallLog::kBlockBytes);
    EXPECT_LT(log.bytes(), in.size() * sizeof(CallEvent) / 2);
    CallLog::Cursor cur(log);
    size_t n = 0;
    for (CallEvent e; cur.next(e); ++n) {
        ASSERT_LT(n, in.size());
        ASSERT_EQ(std::memcmp(&e, &in[n], sizeof e), 0) << n;
    }
    EXPECT_EQ(n, in.size());
    CallLog empty;
    CallLog::Cursor none(empty);
    CallEvent e;
    EXPECT_FALSE(none.next(e));
}

// Whole pages are stored in pages (bytes, the page-cache split, a short
// read's shortfall) and a blocked time as its difference from the call's
// duration when that is shorter: every mix of those forms round trips.
TEST(CallLog, RoundTripsWholePagesAndBlockedTimes) {
    std::mt19937_64 rng(4);
    const auto pick = [&](uint64_t n) { return rng() % n; };
    const auto page_or_not = [&](uint64_t max_pages) {
        const uint64_t v = pick(max_pages) << 12;
        return pick(3) ? v : v + 1 + pick(4095);
    };
    std::vector<CallEvent> in;
    CallLog log;
    uint64_t t = 1'000'000;
    for (int i = 0; i < 200'000; ++i) {
        CallEvent e;
        t += pick(3000);
        e.start_ns = t;
        e.duration_ns = pick(uint64_t{1} << (pick(40) + 1));
        e.bytes = pick(8)   ? page_or_not(64)
                  : pick(2) ? page_or_not(uint64_t{1} << 40)
                            : UINT64_MAX - pick(2) * 4095;
        switch (pick(4)) {
            case 0:
                e.requested = e.bytes;
                break;
            case 1:
                e.requested = e.bytes + page_or_not(32);
                break;  // short by whole pages, or not
            case 2:
                e.requested = e.bytes - page_or_not(32);
                break;  // more than asked (mod 2^64)
            default:
                e.requested = rng();
                break;
        }
        switch (pick(4)) {
            case 0:
                e.blocked_ns = 0;
                break;
            case 1:
                e.blocked_ns = e.duration_ns - std::min(e.duration_ns, pick(100));
                break;  // near it
            case 2:
                e.blocked_ns = e.duration_ns / (1 + pick(1000));
                break;
            default:
                e.blocked_ns = e.duration_ns + pick(1u << 20);
                break;  // past it
        }
        const auto clip = [](uint64_t v) { return static_cast<uint32_t>(std::min<uint64_t>(v, UINT32_MAX)); };
        switch (pick(4)) {
            case 0:  // all cached
                e.hit_bytes = clip(e.bytes);
                break;
            case 1:  // none cached, read ahead in pages or not
                e.miss_bytes = clip(e.bytes);
                e.readahead_bytes = static_cast<uint32_t>(page_or_not(512));
                break;
            case 2:  // a mix
                e.hit_bytes = static_cast<uint32_t>(page_or_not(1 << 19));
                e.miss_bytes = pick(2) ? 0 : static_cast<uint32_t>(page_or_not(1 << 19));
                e.readahead_bytes = pick(2) ? UINT32_MAX : static_cast<uint32_t>(page_or_not(512));
                break;
            default:
                break;
        }
        e.pid = 100 + static_cast<uint32_t>(pick(3));
        e.tid = e.pid;
        e.packed = static_cast<uint32_t>(pick(16));
        in.push_back(e);
        log.push_back(e);
    }
    CallLog::Cursor cur(log);
    size_t n = 0;
    for (CallEvent e; cur.next(e); ++n) {
        ASSERT_LT(n, in.size());
        ASSERT_EQ(std::memcmp(&e, &in[n], sizeof e), 0) << n;
    }
    EXPECT_EQ(n, in.size());
}

// The block requests' log gives back every request, in order, across its
// chunks: times that go back, whole pages or not, any pid, op and size.
TEST(BlockLog, RoundTripsEveryRequest) {
    std::mt19937_64 rng(5);
    const auto pick = [&](uint64_t n) { return rng() % n; };
    std::vector<BlockEvent> in;
    BlockLog log;
    uint64_t t = 5'000'000;
    for (int i = 0; i < 100'000; ++i) {
        BlockEvent e;
        t += pick(20'000);
        e.issue_ns = i == 3 ? 0 : i == 4 ? UINT64_MAX : pick(5) ? t : t - pick(std::min<uint64_t>(t, 50'000));
        e.pid = pick(4) ? 300 + static_cast<uint32_t>(pick(3)) : static_cast<uint32_t>(rng());
        e.bytes = pick(3) ? static_cast<uint32_t>(pick(256) << 12) : static_cast<uint32_t>(rng());
        e.op = static_cast<uint8_t>(pick(4) ? pick(2) : rng());
        in.push_back(e);
        log.push_back(e);
    }
    EXPECT_EQ(log.size(), in.size());
    BlockLog::Cursor cur(log);
    size_t n = 0;
    for (BlockEvent e; cur.next(e); ++n) {
        ASSERT_LT(n, in.size());
        ASSERT_EQ(e.issue_ns, in[n].issue_ns) << n;
        ASSERT_EQ(e.pid, in[n].pid) << n;
        ASSERT_EQ(e.bytes, in[n].bytes) << n;
        ASSERT_EQ(e.op, in[n].op) << n;
    }
    EXPECT_EQ(n, in.size());
    BlockLog empty;
    BlockLog::Cursor none(empty);
    BlockEvent e;
    EXPECT_FALSE(none.next(e));
}

// A thread's loop of cached reads of one file (bench workload (a)): the
// flags byte and the start and duration, little else.
TEST(CallLog, ACachedReadLoopTakesAFewBytesACall) {
    CallLog log;
    CallEvent e;
    e.pid = 4242;
    e.tid = 4243;
    e.packed = IOLENS_OP_READ | (CallEvent::kHasSize | CallEvent::kRegular | CallEvent::kCountedRead) << 4 |
               12345u << 11;
    const int n = 1'000'000;
    for (int i = 0; i < n; ++i) {
        e.start_ns = 1'000'000 + uint64_t(i) * 1'500;
        e.duration_ns = 900 + i % 50;
        e.bytes = e.requested = e.hit_bytes = 4096;
        log.push_back(e);
    }
    // Blocks are whole 2 MiB: count the bytes used through the blocks taken.
    // 6 bytes a call: the flags, the start and the duration (2 each), the
    // bytes in pages (1).
    EXPECT_LE(log.bytes(), 6u * n + CallLog::kBlockBytes);
    CallLog::Cursor cur(log);
    size_t got = 0;
    for (CallEvent d; cur.next(d); ++got) ASSERT_EQ(d.hit_bytes, 4096u);
    EXPECT_EQ(got, size_t(n));
}

TEST(StartOrder, StableStartOrderWithinTheBufferElseFlagsIt) {
    std::mt19937_64 rng(2);
    std::vector<CallEvent> in;
    uint64_t t = 1'000'000;
    for (int i = 0; i < 20'000; ++i) in.push_back(random_call(rng, t));
    std::vector<std::pair<uint64_t, uint32_t>> got;  // (start, push index)
    StartOrder order(1000, [&](const OrderedCall& e, uint32_t tag) { got.push_back({e.start_ns, tag}); });
    for (uint32_t i = 0; i < in.size(); ++i) order.push(in[i], i);
    order.finish();
    ASSERT_TRUE(order.in_order());
    std::vector<uint32_t> expect(in.size());
    for (uint32_t i = 0; i < in.size(); ++i) expect[i] = i;
    std::stable_sort(expect.begin(), expect.end(),
                     [&](uint32_t a, uint32_t b) { return in[a].start_ns < in[b].start_ns; });
    ASSERT_EQ(got.size(), in.size());
    for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i].second, expect[i]) << i;

    // A call far older than the buffer can hold: flagged, never misplaced.
    StartOrder small(4, [](const OrderedCall&, uint32_t) {});
    CallEvent e;
    for (uint64_t s = 100; s < 110; ++s) {
        e.start_ns = s;
        small.push(e, 0);
    }
    e.start_ns = 1;
    small.push(e, 0);
    EXPECT_FALSE(small.in_order());
}

TEST(StartOrder, ThreadsThatAreDoneGiveTheirRingsBack) {
    // 200 threads one after the other (DataLoader workers respawned every
    // epoch), each with a burst of 300 calls: each lane's ring grows past
    // the buffer's capacity share and then empties for good. What the
    // buffer holds follows the calls buffered (spares up to its capacity),
    // not every thread ever seen.
    constexpr size_t kCapacity = 64;
    size_t handed = 0;
    StartOrder order(kCapacity, [&](const OrderedCall&, uint32_t) { handed++; });
    CallEvent e;
    e.pid = 7;
    uint64_t t = 1000;
    for (uint32_t tid = 1; tid <= 200; ++tid) {
        e.tid = tid;
        for (int i = 0; i < 300; ++i) {
            e.start_ns = t++;
            order.push(e, 0);
        }
        ASSERT_LE(order.held_items(), 4 * kCapacity) << "thread " << tid;
    }
    order.finish();
    EXPECT_TRUE(order.in_order());
    EXPECT_EQ(handed, 200u * 300u);
}

TEST(StallSweep, AsyncRequestsAreNoThreadsWait) {
    // The main thread keeps io_uring reads in flight (1 ms each, back to back)
    // and makes one 10 us pread: only the pread is its I/O time.
    std::vector<CallEvent> calls;
    for (int i = 0; i < 10; ++i) {
        iolens_syscall_rec r{};
        r.op = IOLENS_OP_READ;
        r.flags = IOLENS_SC_HAS_FILE | IOLENS_SC_REGULAR | (IOLENS_PATH_IO_URING << IOLENS_SC_PATH_SHIFT);
        r.pid = r.tid = 100;
        r.start_ns = 1'000'000 + uint64_t(i) * 1'000'000;
        r.duration_ns = 1'000'000;
        r.ret = 4096;
        calls.push_back(make_call_event(r, std::nullopt, 0));
        EXPECT_TRUE(calls.back().has(CallEvent::kAsync));
    }
    iolens_syscall_rec r{};
    r.op = IOLENS_OP_READ;
    r.flags = IOLENS_SC_HAS_FILE | IOLENS_SC_REGULAR;
    r.pid = r.tid = 100;
    r.start_ns = 20'000'000;
    r.duration_ns = 10'000;
    r.ret = 4096;
    calls.push_back(make_call_event(r, std::nullopt, 0));
    EXPECT_FALSE(calls.back().has(CallEvent::kAsync));
    std::vector<const CallEvent*> ptrs;
    for (const auto& c : calls) ptrs.push_back(&c);
    const RankStalls got = rank_stalls(ptrs, {100}, {}, {{0, 30'000'000}});
    EXPECT_EQ(got.io_ns, 10'000u);
    EXPECT_EQ(got.critical_ns, 10'000u);
}

TEST(StallSweep, EqualsTheUnionOfSortedIntervals) {
    std::mt19937_64 rng(3);
    std::vector<CallEvent> calls;
    uint64_t t = 1000;
    for (int i = 0; i < 5000; ++i) {
        CallEvent e = random_call(rng, t);
        e.duration_ns = rng() % 20'000;
        e.tid = e.pid + static_cast<uint32_t>(rng() % 3);
        calls.push_back(e);
    }
    std::vector<const CallEvent*> ptrs;
    for (const auto& c : calls) ptrs.push_back(&c);
    const std::vector<uint32_t> roots = {100, 102};
    std::vector<OffCpuEvent> off = {{5000, 900'000, 100, 100},
                                    {1'000'000, 3'000'000, 102, 102},
                                    {2'000'000, 2'500'000, 101, 101} /* not a root */};
    // Epoch-like windows: contiguous, one empty, the last cut short.
    std::vector<Interval> windows;
    for (uint64_t lo = 0; lo < t; lo += t / 7) windows.push_back({lo, lo + t / 7});
    windows.insert(windows.begin() + 2, Interval{windows[2].start, windows[2].start});
    windows.back().end -= t / 20;
    const RankStalls got = rank_stalls(ptrs, roots, off, windows);

    // The definition, computed the plain way: every call but the async
    // requests (no thread waits through them).
    std::vector<Interval> io, main_io;
    for (const auto& c : calls) {
        if (c.has(CallEvent::kAsync)) continue;
        io.push_back({c.start_ns, c.start_ns + c.duration_ns});
        if (c.tid == c.pid && (c.pid == 100 || c.pid == 102)) main_io.push_back(io.back());
    }
    const IntervalSet want_io(io);
    const IntervalSet want_crit =
        IntervalSet(main_io).unite(IntervalSet({{5000, 900'000}, {1'000'000, 3'000'000}}).intersect(want_io));
    EXPECT_EQ(got.io_ns, want_io.measure());
    EXPECT_EQ(got.critical_ns, want_crit.measure());
    EXPECT_GT(got.critical_ns, 0u);
    EXPECT_LT(got.critical_ns, got.io_ns);
    ASSERT_EQ(got.io_in.size(), windows.size());
    for (size_t k = 0; k < windows.size(); ++k) {
        EXPECT_EQ(got.io_in[k], want_io.measure_within(windows[k].start, windows[k].end)) << k;
        EXPECT_EQ(got.critical_in[k], want_crit.measure_within(windows[k].start, windows[k].end)) << k;
    }
    uint64_t thread_sum = 0;
    for (const auto& th : got.threads) {
        std::vector<Interval> mine;
        for (const auto& c : calls)
            if (c.pid == th.pid && c.tid == th.tid && !c.has(CallEvent::kAsync))
                mine.push_back({c.start_ns, c.start_ns + c.duration_ns});
        EXPECT_EQ(th.io_ns, IntervalSet(mine).measure()) << th.pid << "/" << th.tid;
        thread_sum += th.io_ns;
    }
    EXPECT_GE(thread_sum, got.io_ns);
    for (size_t i = 1; i < got.threads.size(); ++i) EXPECT_GE(got.threads[i - 1].io_ns, got.threads[i].io_ns);
}

TEST(IntervalSet, UniteAndSortedInputEqualTheSortAndMerge) {
    std::mt19937_64 rng(4);
    for (int round = 0; round < 200; ++round) {
        std::vector<Interval> a, b;
        for (int i = 0; i < 50; ++i) {
            const uint64_t s = rng() % 10'000;
            (i % 2 ? a : b).push_back({s, s + rng() % (round % 3 == 0 ? 5 : 400)});
        }
        std::vector<Interval> all = a;
        all.insert(all.end(), b.begin(), b.end());
        const IntervalSet want(all);
        const IntervalSet got = IntervalSet(a).unite(IntervalSet(b));
        ASSERT_EQ(got.intervals().size(), want.intervals().size()) << round;
        for (size_t i = 0; i < got.intervals().size(); ++i) {
            EXPECT_EQ(got.intervals()[i].start, want.intervals()[i].start);
            EXPECT_EQ(got.intervals()[i].end, want.intervals()[i].end);
        }
        // Rebuilding from its own (sorted, disjoint) pieces keeps them.
        EXPECT_EQ(IntervalSet(want.intervals()).measure(), want.measure());
        EXPECT_EQ(IntervalSet(want.intervals()).intervals().size(), want.intervals().size());
    }
    // Touching pieces are merged even when sorted.
    EXPECT_EQ(IntervalSet({{1, 5}, {5, 9}}).intervals().size(), 1u);
}

// The inference state machine run on every data read (the former per-call
// behaviour) and on DataReadLog's subsequence must find the same starts.
// data_reads_full re-derives rule 1 without any compaction.
std::vector<DataRead> data_reads_full(const std::vector<CallEvent>& calls,
                                      const std::vector<bool>& data_file) {
    std::map<uint64_t, uint8_t> state;
    std::vector<DataRead> out;
    for (const CallEvent& e : calls) {
        const uint32_t f = e.file();
        if (f >= data_file.size() || !data_file[f]) continue;
        const uint64_t key = uint64_t{e.pid} << 32 | f;
        if (e.op() == IOLENS_OP_OPEN) {
            if (!e.has(CallEvent::kError)) state[key] |= 2;
            continue;
        }
        if (e.op() != IOLENS_OP_READ || !e.has(CallEvent::kRegular) || !e.has(CallEvent::kHasSize) ||
            e.bytes == 0)
            continue;
        uint8_t& s = state[key];
        out.push_back({e.start_ns, f, !(s & 1) || (s & 2)});
        s = 1;
    }
    std::map<uint32_t, uint32_t> passes;
    for (const auto& r : out) passes[r.file] += r.pass;
    std::erase_if(out, [&](const DataRead& r) { return passes[r.file] < 2; });
    return out;
}

CallEvent call(uint32_t pid, int op, uint64_t t, uint32_t file, uint64_t bytes) {
    CallEvent e;
    e.pid = e.tid = pid;
    e.start_ns = t;
    e.duration_ns = 100;
    e.bytes = bytes;
    const uint32_t flags = CallEvent::kRegular | (op == IOLENS_OP_READ ? CallEvent::kHasSize : 0);
    e.packed = static_cast<uint32_t>(op) | flags << 4 | file << 9;
    return e;
}

TEST(DataReadLog, KeepsASubsequenceThatInfersTheSameEpochs) {
    for (uint64_t seed = 1; seed <= 40; ++seed) {
        std::mt19937_64 rng(seed);
        const uint32_t files = 20 + rng() % 30, workers = 1 + rng() % 4, epochs = 1 + rng() % 4;
        std::vector<bool> data_file(files + 3, true);
        data_file[files] = false;  // a code file
        std::vector<CallEvent> calls;
        uint64_t t = 1000;
        // Workers read shuffled files in chunks, interleaved; a checkpoint
        // (file files+1) is read once in chunks; file files+2 is re-read
        // without reopening at random.
        for (uint32_t e = 0; e < epochs; ++e) {
            std::vector<uint32_t> order(files);
            for (uint32_t f = 0; f < files; ++f) order[f] = f;
            std::shuffle(order.begin(), order.end(), rng);
            if (seed % 5 == 0 && e > 0) order.resize(files * 3 / 4);  // a short epoch
            struct W {
                uint32_t pid;
                std::vector<uint32_t> todo;
                uint32_t chunk = 0;
            };
            std::vector<W> ws(workers);
            for (uint32_t w = 0; w < workers; ++w) ws[w].pid = 1000 + e * 10 + (seed % 2 ? w : 0);
            for (size_t i = 0; i < order.size(); ++i) ws[i % workers].todo.push_back(order[i]);
            for (bool any = true; any;) {
                any = false;
                for (auto& w : ws) {
                    if (w.todo.empty()) continue;
                    any = true;
                    const uint32_t f = w.todo.front();
                    if (w.chunk == 0 && rng() % 8)
                        calls.push_back(call(w.pid, IOLENS_OP_OPEN, t += 10, f, 0));
                    calls.push_back(call(w.pid, IOLENS_OP_READ, t += 10 + rng() % 50, f, 4096));
                    if (rng() % 10 == 0) calls.push_back(call(w.pid, IOLENS_OP_READ, t += 5, files + 2, 10));
                    if (rng() % 50 == 0) calls.push_back(call(w.pid, IOLENS_OP_READ, t += 5, files, 10));
                    if (++w.chunk >= 1 + rng() % 12) {
                        w.chunk = 0;
                        w.todo.erase(w.todo.begin());
                    }
                }
            }
            calls.push_back(call(7, IOLENS_OP_READ, t += 10, files + 1, 4096));
            t += 100'000;
        }
        std::vector<uint64_t> respawns = {500, t / 3, t / 2};
        std::sort(respawns.begin(), respawns.end());

        DataReadLog log(data_file);
        for (const auto& c : calls) log.add(c);
        const DataReads kept = std::move(log).finish();
        const std::vector<DataRead> full = data_reads_full(calls, data_file);
        // A subsequence of the full reads...
        size_t j = 0;
        for (const auto& r : kept) {
            while (j < full.size() && !(full[j].t == r.t && full[j].file == r.file && full[j].pass == r.pass))
                ++j;
            ASSERT_LT(j, full.size()) << "seed " << seed;
            ++j;
        }
        EXPECT_LE(kept.size(), full.size());
        // ... with the same epochs.
        EXPECT_EQ(infer_epoch_starts(kept, respawns), infer_epoch_starts(full, respawns)) << "seed " << seed;
        std::vector<const CallEvent*> ptrs;
        for (const auto& c : calls) ptrs.push_back(&c);
        EXPECT_EQ(infer_epoch_starts(ptrs, data_file, respawns), infer_epoch_starts(full, respawns));
    }
}

// DataReads gives back what was pushed, across its 64 KiB blocks, and
// filter keeps the wanted files' reads in order, including none at all.
TEST(DataReads, RoundTripsAcrossBlocksAndFilters) {
    std::mt19937_64 rng(9);
    std::vector<DataRead> in;
    uint64_t t = 5;
    for (int i = 0; i < 200'000; ++i) {  // ~20 blocks
        t += rng() % 3 == 0 ? 0 : rng() % (uint64_t{1} << (rng() % 40));
        const uint64_t at = rng() % 50 == 0 ? t - std::min<uint64_t>(t, rng() % 1000) : t;  // a few go back
        in.push_back({at, static_cast<uint32_t>(rng() % 3 == 0 ? rng() : rng() % 100), rng() % 2 == 0});
    }
    DataReads reads(in.begin(), in.end());
    ASSERT_EQ(reads.size(), in.size());
    const auto same = [](const DataReads& got, const std::vector<DataRead>& want) {
        size_t n = 0;
        for (const DataRead& r : got) {
            if (n >= want.size()) return false;
            if (r.t != want[n].t || r.file != want[n].file || r.pass != want[n].pass) return false;
            ++n;
        }
        return n == want.size() && got.size() == want.size() && got.empty() == want.empty();
    };
    EXPECT_TRUE(same(reads, in));
    EXPECT_EQ(reads.front().t, in.front().t);

    std::vector<DataRead> even;
    for (const auto& r : in)
        if (r.file % 2 == 0) even.push_back(r);
    reads.filter([](uint32_t f) { return f % 2 == 0; });
    EXPECT_TRUE(same(reads, even));

    DataReads moved = std::move(reads);
    EXPECT_TRUE(same(moved, even));
    EXPECT_TRUE(reads.empty());  // NOLINT(bugprone-use-after-move): moved from is empty
    EXPECT_TRUE(reads.begin() == reads.end());

    moved.filter([](uint32_t) { return false; });
    EXPECT_TRUE(moved.empty());
    EXPECT_TRUE(moved.begin() == moved.end());
    DataReads none;
    EXPECT_TRUE(same(none, {}));
}

TEST(DataReadLog, ChunkedReadsOfOneFileKeepTwo) {
    std::vector<bool> data_file(2, true);
    DataReadLog log(data_file);
    uint64_t t = 0;
    for (int pass = 0; pass < 2; ++pass) {
        for (uint32_t f = 0; f < 2; ++f) {
            log.add(call(1, IOLENS_OP_OPEN, t += 10, f, 0));
            for (int i = 0; i < 1000; ++i) log.add(call(1, IOLENS_OP_READ, t += 10, f, 4096));
        }
    }
    // Per file pass: the pass read, the first and the last of the rest.
    EXPECT_EQ(std::move(log).finish().size(), 4u * 3);
}

}  // namespace
