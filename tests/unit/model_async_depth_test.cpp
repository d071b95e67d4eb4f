// The queue depth of asynchronous requests (model/async_depth.h): exact on
// synthetic request streams in completion order, per process and per file
// through ReportBuilder, and in the JSON and terminal views.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <sstream>
#include <vector>

#include "iolens/abi.h"
#include "model/async_depth.h"
#include "model/report_builder.h"
#include "recording/record_buffer.h"
#include "report/json_renderer.h"
#include "report/terminal_renderer.h"

using namespace iolens::model;

namespace {

struct Req {
    uint64_t start, duration;
    uint64_t end() const { return start + duration; }
};

// Requests fed as the kernel emits them: by completion.
AsyncDepthStats depth_of(std::vector<Req> reqs) {
    std::stable_sort(reqs.begin(), reqs.end(), [](const Req& a, const Req& b) { return a.end() < b.end(); });
    AsyncDepth d;
    for (const auto& q : reqs) d.add(q.start, q.duration);
    return d.stats();
}

// D requests submitted together, all reaped before the next batch (the
// workload's uring mode): request i of a batch takes (i + 1) * step.
std::vector<Req> batches(uint64_t n, uint64_t depth, uint64_t step) {
    std::vector<Req> v;
    uint64_t t = 1000;
    for (uint64_t next = 0; next < n; next += depth) {
        const uint64_t b = std::min(depth, n - next);
        for (uint64_t i = 0; i < b; ++i) v.push_back({t, (i + 1) * step});
        t += b * step + 50;  // the batch's last completion, then a gap
    }
    return v;
}

}  // namespace

TEST(AsyncDepth, NothingInFlightHasNoDepth) {
    const AsyncDepthStats s = AsyncDepth{}.stats();
    EXPECT_EQ(s.requests, 0u);
    EXPECT_FALSE(s.mean_depth());
}

TEST(AsyncDepth, OneAtATimeIsDepthOneExactly) {
    std::vector<Req> v;
    for (uint64_t i = 0; i < 1000; ++i) v.push_back({i * 100, 60 + i % 7});
    const auto s = depth_of(v);
    EXPECT_EQ(s.requests, 1000u);
    EXPECT_EQ(s.busy_ns, s.request_ns);
    EXPECT_DOUBLE_EQ(*s.mean_depth(), 1.0);
    EXPECT_EQ(s.max_depth, 1u);
    EXPECT_EQ(s.clipped, 0u);
}

TEST(AsyncDepth, BackToBackRequestsAreStillDepthOne) {
    // The next request is submitted the instant the previous completes.
    std::vector<Req> v;
    for (uint64_t i = 0; i < 100; ++i) v.push_back({i * 10, 10});
    const auto s = depth_of(v);
    EXPECT_EQ(s.busy_ns, 1000u);
    EXPECT_EQ(s.max_depth, 1u);
    EXPECT_DOUBLE_EQ(*s.mean_depth(), 1.0);
}

TEST(AsyncDepth, BatchesOfEight) {
    // Per batch: latencies 1..8 steps (36 steps), busy 8 steps: depth 4.5.
    const auto s = depth_of(batches(8000, 8, 100));
    EXPECT_EQ(s.requests, 8000u);
    EXPECT_EQ(s.max_depth, 8u);
    EXPECT_EQ(s.busy_ns, 1000u * 8 * 100);
    EXPECT_DOUBLE_EQ(*s.mean_depth(), 4.5);
}

TEST(AsyncDepth, ConstantDepthKeptFull) {
    // 16 in flight, each refilled as it completes: depth 16 but for the ramp.
    std::vector<Req> v;
    for (uint64_t lane = 0; lane < 16; ++lane)
        for (uint64_t i = 0; i < 1000; ++i) v.push_back({lane + i * 160, 160});
    const auto s = depth_of(v);
    EXPECT_EQ(s.max_depth, 16u);
    EXPECT_EQ(s.busy_ns, 15u + 1000 * 160);
    EXPECT_NEAR(*s.mean_depth(), 16.0, 0.01);
}

TEST(AsyncDepth, MatchesABruteForceSweepPastTheHoldBack) {
    // More requests than the hold-back, random overlaps, fed by completion:
    // the same figures as a sweep over every instant.
    std::mt19937_64 rng(7);
    std::vector<Req> v;
    uint64_t t = 0;
    for (size_t i = 0; i < AsyncDepth::kHoldBack * 3; ++i) {
        t += rng() % 40;
        v.push_back({t, 1 + rng() % 300});
    }
    const auto s = depth_of(v);
    uint64_t end = 0;
    for (const auto& q : v) end = std::max(end, q.end());
    std::vector<int64_t> delta(end + 2, 0);
    uint64_t sum = 0;
    for (const auto& q : v) delta[q.start]++, delta[q.end()]--, sum += q.duration;
    int64_t depth = 0, max_depth = 0;
    uint64_t busy = 0;
    for (uint64_t i = 0; i <= end; ++i) {
        depth += delta[i];
        max_depth = std::max(max_depth, depth);
        busy += depth > 0;
    }
    EXPECT_EQ(s.clipped, 0u);
    EXPECT_EQ(s.request_ns, sum);
    EXPECT_EQ(s.busy_ns, busy);
    EXPECT_EQ(s.max_depth, static_cast<uint64_t>(max_depth));
}

TEST(AsyncDepth, ARequestOutlivingTheHoldBackIsClippedNotLost) {
    AsyncDepth d;
    // Many short requests one at a time, then one that started first and
    // completes last.
    for (uint64_t i = 0; i < AsyncDepth::kHoldBack; ++i) d.add(100 + i * 10, 5);
    d.add(0, 100 + AsyncDepth::kHoldBack * 10);
    const auto s = d.stats();
    EXPECT_EQ(s.requests, AsyncDepth::kHoldBack + 1);
    EXPECT_EQ(s.clipped, 1u);
    EXPECT_EQ(s.max_depth, 2u);
    EXPECT_GT(s.busy_ns, 0u);
}

// --- through ReportBuilder ------------------------------------------------------

namespace {

constexpr uint32_t kDev = (8u << 20) | 1;

void request(iolens::recording::RecordBuffer& buf, uint32_t pid, int path, uint64_t ino, uint64_t start,
             uint64_t duration, int op = IOLENS_OP_READ) {
    iolens_syscall_rec r{};
    r.op = static_cast<uint8_t>(op);
    r.flags = static_cast<uint8_t>(IOLENS_SC_HAS_FILE | IOLENS_SC_REGULAR | (path << IOLENS_SC_PATH_SHIFT));
    r.pid = r.tid = pid;
    r.start_ns = start;
    r.duration_ns = duration;
    r.ret = r.requested = 4096;
    r.offset = 0;
    r.ino = ino;
    r.dev = kDev;
    r.fd = 3;
    buf.syscall(r);
}

Report build(const iolens::recording::RecordBuffer& buf) {
    ReportBuilder b;
    EXPECT_TRUE(b.add_records(buf.bytes()).ok());
    return b.finish();
}

}  // namespace

TEST(AsyncDepthReport, PerProcessAndPerFile) {
    iolens::recording::RecordBuffer buf;
    // pid 100: io_uring at depth 4 on file 7 (4 requests of 1000 ns
    // submitted together, in batches 2000 ns apart); pid 200: AIO one at a
    // time on file 7 and 8; plain syscalls count nowhere.
    for (uint64_t b = 0; b < 10; ++b)
        for (int i = 0; i < 4; ++i) request(buf, 100, IOLENS_PATH_IO_URING, 7, 10'000 + b * 2000, 1000);
    for (uint64_t i = 0; i < 10; ++i)
        request(buf, 200, IOLENS_PATH_AIO, i % 2 ? 8 : 7, 100'000 + i * 500, 400, IOLENS_OP_WRITE);
    request(buf, 100, IOLENS_PATH_SYSCALL, 7, 500'000, 100);
    const Report r = build(buf);
    ASSERT_EQ(r.processes.size(), 2u);
    const auto& u = r.processes[0].async;
    EXPECT_EQ(u.requests, 40u);
    EXPECT_EQ(u.max_depth, 4u);
    EXPECT_EQ(u.busy_ns, 10'000u);
    EXPECT_DOUBLE_EQ(*u.mean_depth(), 4.0);
    const auto& a = r.processes[1].async;
    EXPECT_EQ(a.requests, 10u);
    EXPECT_EQ(a.max_depth, 1u);
    EXPECT_DOUBLE_EQ(*a.mean_depth(), 1.0);
    for (const auto& f : r.files) {
        if (f.ino == 7) {
            EXPECT_EQ(f.async.requests, 45u);  // both processes' requests on it
            EXPECT_EQ(f.async.max_depth, 4u);
        } else {
            EXPECT_EQ(f.async.requests, 5u);
        }
    }

    const auto j = iolens::report::report_to_json(r);
    EXPECT_EQ(j["processes"][0]["async"]["requests"], 40);
    EXPECT_EQ(j["processes"][0]["async"]["mean_depth"], 4.0);
    EXPECT_EQ(j["processes"][0]["async"]["max_depth"], 4);
    EXPECT_EQ(j["processes"][0]["async"]["busy_ns"], 10'000);
    EXPECT_EQ(j["processes"][1]["async"]["mean_depth"], 1.0);
    std::ostringstream out;
    iolens::report::render_terminal(r, out, {});
    EXPECT_NE(out.str().find("Async requests in flight"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("4.00"), std::string::npos) << out.str();
}

TEST(AsyncDepthReport, NoAsyncRequestsNoSection) {
    iolens::recording::RecordBuffer buf;
    request(buf, 100, IOLENS_PATH_SYSCALL, 7, 1000, 100);
    const Report r = build(buf);
    EXPECT_EQ(r.processes[0].async.requests, 0u);
    const auto j = iolens::report::report_to_json(r);
    EXPECT_FALSE(j["processes"][0].contains("async"));
    EXPECT_FALSE(j["files"][0].contains("async"));
    std::ostringstream out;
    iolens::report::render_terminal(r, out, {});
    EXPECT_EQ(out.str().find("Async requests in flight"), std::string::npos);
}

TEST(AsyncDepthReport, AReusedPidKeepsEachProcesssDepth) {
    iolens::recording::RecordBuffer buf;
    buf.proc(IOLENS_REC_FORK, 100, 1, 1, "first");
    for (uint64_t i = 0; i < 4; ++i) request(buf, 100, IOLENS_PATH_AIO, 7, 1000, 100);
    buf.proc(IOLENS_REC_EXIT, 100, 1, 5000, "first");
    buf.proc(IOLENS_REC_FORK, 100, 1, 6000, "second");
    request(buf, 100, IOLENS_PATH_AIO, 7, 7000, 100);
    const Report r = build(buf);
    ASSERT_EQ(r.processes.size(), 2u);
    EXPECT_EQ(r.processes[0].async.requests, 4u);
    EXPECT_EQ(r.processes[0].async.max_depth, 4u);
    EXPECT_EQ(r.processes[1].async.requests, 1u);
    EXPECT_EQ(r.processes[1].async.max_depth, 1u);
}
