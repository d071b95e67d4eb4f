// Runs of calls (IOLENS_REC_SYSCALL_RUN, iolens/abi.h; issue #14): the kernel
// side folds a thread's calls that continue one another into one record. The
// reader expands a run into the records it stands for, so a report made from
// runs is the report made from the same calls one record each.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "iolens/abi.h"
#include "model/record_walk.h"
#include "model/report_builder.h"
#include "recording/record_buffer.h"
#include "recording/record_calls.h"
#include "report/json_renderer.h"

using namespace iolens;
using namespace iolens::model;
using iolens::recording::RecordBuffer;

namespace {

constexpr uint32_t kDev = (8u << 20) | 1;

// A thread's calls in batches, as the kernel side sends them: each batch is
// written either one record a call or folded into runs. Sequential pieces,
// the same bytes again, a fixed stride, random reads, short reads at the
// end, errors, opens, another file, gaps and durations past 2^32 ns.
struct Job {
    std::vector<std::vector<iolens_syscall_rec>> batches;  // each one thread's, in order

    explicit Job(uint64_t seed) {
        std::mt19937_64 rng(seed);
        struct Thread {
            uint32_t pid, tid;
            uint64_t t;
        };
        std::vector<Thread> threads = {{100, 100, 1'000'000}, {100, 101, 1'000'000}, {200, 200, 1'000'000}};
        for (int b = 0; b < 300; ++b) {
            Thread& th = threads[rng() % threads.size()];
            std::vector<iolens_syscall_rec> batch;
            const int pattern = static_cast<int>(rng() % 5);
            const uint64_t ino = 1 + rng() % 4;
            const int64_t size = std::array<int64_t, 3>{4096, 65536, 1000}[rng() % 3];
            uint64_t off = (rng() % 16) * 4096;
            const int n = 1 + static_cast<int>(rng() % 40);
            for (int i = 0; i < n; ++i) {
                iolens_syscall_rec r{};
                r.syscall_nr = pattern == 4 ? 1 /* write */ : 17 /* pread64 */;
                r.op = pattern == 4 ? IOLENS_OP_WRITE : IOLENS_OP_READ;
                r.flags = IOLENS_SC_HAS_FILE | IOLENS_SC_REGULAR | IOLENS_SC_CACHE_ZERO;
                r.pid = th.pid;
                r.tid = th.tid;
                r.fd = 3 + static_cast<int32_t>(ino);
                r.dev = kDev;
                r.ino = ino;
                r.requested = static_cast<uint64_t>(size);
                r.ret = size;
                r.offset = off;
                const uint64_t roll = rng() % 100;
                if (roll < 3) r.ret = size / 3;  // a short read
                if (roll == 3) r.ret = -5;       // an error
                if (roll == 4) r.op = IOLENS_OP_OPEN, r.offset = IOLENS_NO_OFFSET, r.ret = 3;
                if (roll == 5) r.ino = ino % 4 + 1;                     // another file
                th.t += roll == 6 ? 5'000'000'000ull : rng() % 20'000;  // a gap past 2^32 ns
                r.start_ns = th.t;
                r.duration_ns = roll == 7 ? 6'000'000'000ull : 200 + rng() % 100'000;
                th.t += r.duration_ns;
                batch.push_back(r);
                if (pattern == 0 || pattern == 4) off += static_cast<uint64_t>(size);  // sequential
                if (pattern == 2) off += 3 * static_cast<uint64_t>(size);              // strided
                if (pattern == 3) off = (rng() % 64) * 4096;                           // random
                // pattern 1: the same bytes again
            }
            batches.push_back(std::move(batch));
        }
    }

    RecordBuffer records(bool runs) const {
        RecordBuffer buf;
        for (uint32_t pid : {100u, 200u}) buf.proc(IOLENS_REC_FORK, pid, 1, 500'000, "job");
        for (uint64_t ino = 1; ino <= 4; ++ino) {
            iolens_file_rec f{};
            f.pid = 100;
            f.dev = kDev;
            f.ino = ino;
            buf.file(f, recording::path_components("/data/shard" + std::to_string(ino) + ".bin"));
        }
        for (const auto& batch : batches) {
            if (runs) {
                buf.syscall_runs(batch);
            } else {
                for (const auto& r : batch) buf.syscall(r, true);
            }
        }
        return buf;
    }
};

Report build(const RecordBuffer& buf, uint64_t& walked) {
    BuilderOptions o;
    o.timeline_bins = 32;
    ReportBuilder b(o);
    CaptureInfo c;
    c.start_mono_ns = 1;
    c.duration_ns = 400'000'000'000ull;
    b.set_capture(c);
    const auto r = b.add_records(buf.bytes());
    EXPECT_TRUE(r.ok()) << r.error().message;
    walked = b.records_seen();
    return b.finish();
}

// Counts what a walk hands over.
struct Collect {
    std::vector<iolens_syscall_rec> calls;
    void on_syscall(const iolens_syscall_rec& r, bool has_cache) {
        EXPECT_TRUE(has_cache);
        calls.push_back(r);
    }
    void on_pagecache(const iolens_pagecache_rec&) {}
    void on_block(const iolens_block_rec&) {}
    void on_file(const iolens_file_rec&, const char*) {}
    void on_fork(const iolens_proc_rec&) {}
    void on_exit(const iolens_proc_rec&) {}
    void on_exec(const iolens_exec_rec&, const char*) {}
    void on_marker(const iolens_marker_rec&) {}
    void on_offcpu(const iolens_offcpu_rec&) {}
    void on_unknown(uint16_t) { ADD_FAILURE() << "unknown record"; }
};

}  // namespace

TEST(SyscallRuns, ARunReplaysToTheSameRecordsAndTheSameReport) {
    for (uint64_t seed = 1; seed <= 4; ++seed) {
        const Job job(seed);
        const RecordBuffer one = job.records(false), runs = job.records(true);
        // Folded: fewer and smaller records, some of them runs.
        size_t run_records = 0;
        for (size_t i = 0, at = 0; i < runs.boundaries().size(); at = runs.boundaries()[i++]) {
            iolens_rec_hdr h;
            std::memcpy(&h, runs.bytes().data() + at, sizeof h);
            if (h.type == IOLENS_REC_SYSCALL_RUN) run_records++;
        }
        EXPECT_GT(run_records, 50u) << seed;
        EXPECT_LT(runs.size() * 2, one.size()) << seed;
        // The walk hands over the very records, in order.
        Collect a, b;
        uint64_t wa = 0, wb = 0;
        ASSERT_TRUE(walk_records(one.bytes(), a, wa).ok());
        ASSERT_TRUE(walk_records(runs.bytes(), b, wb).ok());
        ASSERT_EQ(a.calls.size(), b.calls.size());
        EXPECT_EQ(wa, wb) << "a run counts as the records it stands for";
        for (size_t i = 0; i < a.calls.size(); ++i)
            ASSERT_EQ(std::memcmp(&a.calls[i], &b.calls[i], sizeof a.calls[i]), 0) << seed << " call " << i;
        // And the report is the same, to the byte.
        uint64_t ra = 0, rb = 0;
        const Report ra_report = build(one, ra), rb_report = build(runs, rb);
        EXPECT_EQ(ra, rb);
        EXPECT_GT(ra_report.totals[IOLENS_OP_READ].calls, 2000u);
        EXPECT_GT(ra_report.totals[IOLENS_OP_WRITE].bytes, 0u);
        EXPECT_EQ(report::report_to_json_text(ra_report), report::report_to_json_text(rb_report)) << seed;
    }
}

TEST(SyscallRuns, CountsAsItsCalls) {
    iolens_rec_hdr h{IOLENS_REC_SYSCALL_RUN, IOLENS_SYSCALL_REC_V1_SIZE + 8 + 3 * 8};
    EXPECT_EQ(recording::record_calls(h), 4u);
    h.type = IOLENS_REC_SYSCALL;
    EXPECT_EQ(recording::record_calls(h), 1u);
}

TEST(SyscallRuns, DamagedRunsAreRefused) {
    iolens_syscall_rec r{};
    r.op = IOLENS_OP_READ;
    r.flags = IOLENS_SC_CACHE_ZERO | IOLENS_SC_HAS_FILE;
    r.ret = 4096;
    r.requested = 4096;
    r.offset = 0;
    std::vector<iolens_syscall_rec> calls(3, r);
    for (size_t i = 0; i < calls.size(); ++i) calls[i].start_ns = 1000 * (i + 1);
    RecordBuffer good;
    good.syscall_runs(calls);
    ASSERT_EQ(good.boundaries().size(), 1u);
    const auto damaged = [&](auto&& change) {
        std::vector<std::byte> bytes(good.bytes().begin(), good.bytes().end());
        change(bytes);
        Collect c;
        uint64_t walked = 0;
        return !walk_records(std::span<const std::byte>(bytes), c, walked).ok();
    };
    const auto set_size = [](std::vector<std::byte>& b, uint16_t size) {
        iolens_rec_hdr h;
        std::memcpy(&h, b.data(), sizeof h);
        h.size = size;
        std::memcpy(b.data(), &h, sizeof h);
        b.resize(size);
    };
    EXPECT_FALSE(damaged([](auto&) {}));
    // No entry, or a piece of one.
    EXPECT_TRUE(damaged([&](auto& b) { set_size(b, IOLENS_SYSCALL_REC_V1_SIZE + 8); }));
    EXPECT_TRUE(damaged([&](auto& b) { set_size(b, IOLENS_SYSCALL_REC_V1_SIZE + 8 + 8 + 4); }));
    EXPECT_TRUE(damaged([&](auto& b) { set_size(b, 20); }));
    // A run that moved no bytes.
    EXPECT_TRUE(damaged([](auto& b) {
        const int64_t zero = 0;
        std::memcpy(b.data() + offsetof(iolens_syscall_rec, ret), &zero, sizeof zero);
    }));
}
