// Rules on asynchronous I/O (Linux AIO, io_uring): whether a job that already
// uses an async interface keeps more than one request in flight.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "analysis/rules.h"

namespace iolens::analysis::detail {

namespace {

// A process's AIO and io_uring read + write requests, and the paths they took.
struct AsyncUse {
    uint64_t reads = 0, writes = 0;
    std::string paths;  // "aio", "io_uring" or "aio,io_uring"
};

AsyncUse async_use(const model::ProcessStats& p) {
    AsyncUse u;
    for (int path : {IOLENS_PATH_AIO, IOLENS_PATH_IO_URING}) {
        const auto& by = p.paths.by[path];
        const uint64_t n = by[IOLENS_OP_READ].calls + by[IOLENS_OP_WRITE].calls;
        if (!n) continue;
        u.reads += by[IOLENS_OP_READ].calls;
        u.writes += by[IOLENS_OP_WRITE].calls;
        u.paths += (u.paths.empty() ? "" : ",") + std::string(model::path_name(path));
    }
    return u;
}

}  // namespace

// shallow_async: a process reads or writes through AIO or io_uring but keeps
// about one request in flight (it waits for each before it submits the
// next), for a noticeable share of the capture.
void shallow_async(const model::Report& r, const Thresholds& t, Candidates& out) {
    struct Hit {
        const model::ProcessStats* p;
        AsyncUse use;
        double depth;
    };
    std::vector<Hit> hits;
    for (const auto& p : r.processes) {
        const auto depth = p.async.mean_depth();
        if (!depth || *depth >= t.shallow_async_max_mean_depth) continue;
        AsyncUse use = async_use(p);
        if (use.reads + use.writes < t.shallow_async_min_requests || !time_matters(r, t, p.async.busy_ns))
            continue;
        hits.push_back({&p, std::move(use), *depth});
    }
    if (hits.empty()) return;
    // The headline: the process whose shallow queue took the most time.
    const Hit& w = *std::max_element(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) {
        return a.p->async.busy_ns < b.p->async.busy_ns;
    });
    const auto& a = w.p->async;
    model::Evidence ev;
    ev.id("pid", w.p->info.pid)
        .text("paths", w.use.paths)
        .count("async_requests", a.requests)
        .count("async_reads", w.use.reads)
        .count("async_writes", w.use.writes)
        .number("mean_depth", round4(w.depth))
        .count("max_depth", a.max_depth)
        .ns("busy_ns", a.busy_ns)
        .ns("request_ns", a.request_ns)
        .number("max_mean_depth", t.shallow_async_max_mean_depth)
        .count("processes_affected", hits.size());
    if (const auto s = capture_share(r, a.busy_ns)) ev.share("busy_capture_share", round4(*s));
    out.push_back(
        {{"shallow_async", model::Severity::Warn,
          fmt::format("pid {} uses {} but keeps {:.2f} requests in flight on average ({} requests)",
                      w.p->info.pid, w.use.paths, w.depth, human_count(a.requests)),
          std::move(ev),
          "The job is asynchronous in name only: it waits for each request before it submits the next, "
          "so it gets the latency of synchronous I/O. Keep several requests in flight: submit a batch "
          "(io_uring: queue N SQEs per io_uring_enter and refill as completions arrive, instead of "
          "waiting for each; libaio: io_submit N iocbs; fio: --iodepth=N; DALI/GDS/tensorstore: raise "
          "the queue depth or the number of concurrent reads). 8-32 in flight suit NVMe; network and "
          "parallel file systems need more."},
         t.shallow_async_max_mean_depth / std::max(w.depth, 0.01)});
}

}  // namespace iolens::analysis::detail
