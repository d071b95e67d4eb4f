#pragma once
// Hand-built reports for the findings tests: a healthy training job that
// triggers no rule, which each test then bends until one rule fires. Built
// directly (no ReportBuilder), so the tests do not depend on how ranks and
// epochs are attributed.
#include <cstdint>
#include <string>

#include "analysis/findings.h"
#include "model/report.h"

namespace iolens::test {

inline constexpr uint64_t kS = 1'000'000'000;
inline constexpr uint64_t kKiB = 1024;
inline constexpr uint64_t kMiB = 1024 * kKiB;
inline constexpr uint64_t kGiB = 1024 * kMiB;

// calls of size bytes each (0: moves no bytes), taking time_ns in total.
inline model::OpStats op(uint64_t calls, uint64_t size, uint64_t time_ns) {
    model::OpStats s;
    s.calls = calls;
    s.bytes = calls * size;
    s.requested_bytes = calls * size;
    s.time_ns = time_ns;
    if (calls) s.latency_ns.add(time_ns / calls, calls);
    if (calls && size) s.size_bytes.add(size, calls);
    return s;
}

inline recording::CaptureInfo capture(bool pagecache = true, bool blocking = true) {
    recording::CaptureInfo c;
    c.command = {"torchrun", "--nproc-per-node=2", "train.py"};
    c.pids = {10};
    c.start_mono_ns = 1000 * kS;
    c.duration_ns = 100 * kS;
    c.probes = {{"syscalls", "tp_btf/sys_enter", true, ""},
                {"pagecache", "tp/filemap", pagecache, pagecache ? "" : "filemap tracepoints missing"},
                {"blocking", "tp_btf/sched_switch", blocking, ""},
                {"block", "tp/block", true, ""}};
    return c;
}

inline model::PageCacheStats cache(uint64_t hit, uint64_t miss, uint64_t readahead = 0, uint64_t unused = 0) {
    model::PageCacheStats p;
    p.hit_bytes = hit;
    p.miss_bytes = miss;
    p.readahead_bytes = readahead;
    p.readahead_unused_bytes = unused;
    return p;
}

inline model::ProcessStats process(uint32_t pid, uint32_t ppid, const std::string& comm) {
    model::ProcessStats p;
    p.info.pid = pid;
    p.info.ppid = ppid;
    p.info.comm = comm;
    return p;
}

// Two ranks reading 10 GiB in 1 MiB sequential reads from 100 files of 100
// MiB, 20 s of read time in a 100 s capture, waiting for I/O 1% of the time,
// three epochs that hit the cache after the first, one small checkpoint.
inline model::Report clean_report() {
    model::Report r;
    r.capture = capture();
    r.totals[IOLENS_OP_READ] = op(10'240, kMiB, 20 * kS);
    r.totals[IOLENS_OP_OPEN] = op(100, 0, kS / 10);
    r.totals[IOLENS_OP_CLOSE] = op(100, 0, kS / 100);
    r.totals[IOLENS_OP_STAT] = op(200, 0, kS / 100);
    r.totals[IOLENS_OP_WRITE] = op(10, kMiB, kS / 10);
    r.totals[IOLENS_OP_SYNC] = op(1, 0, kS / 10);
    r.page_cache = cache(8 * kGiB, 2 * kGiB, 2 * kGiB);

    r.processes.push_back(process(10, 1, "torchrun"));
    for (uint32_t rank = 0; rank < 2; ++rank) {
        const uint32_t pid = 100 + 100 * rank;
        auto main = process(pid, 10, "python3");
        main.ops[IOLENS_OP_WRITE] = op(5, kMiB, kS / 20);
        main.ops[IOLENS_OP_SYNC] = op(1, 0, kS / 20);
        r.processes.push_back(main);
        auto worker = process(pid + 1, pid, "pt_data_worker");
        worker.ops[IOLENS_OP_READ] = op(5'120, kMiB, 10 * kS);
        r.processes.push_back(worker);

        model::RankStats k;
        k.rank = rank;
        k.local_rank = rank;
        k.world_size = 2;
        k.rank_source = "RANK";
        k.pids = {pid, pid + 1};
        k.ops = worker.ops;
        k.ops[IOLENS_OP_WRITE] = main.ops[IOLENS_OP_WRITE];
        k.ops[IOLENS_OP_SYNC] = main.ops[IOLENS_OP_SYNC];
        k.wall_ns = 100 * kS;
        k.io_time_ns = 10 * kS;
        k.critical_io_ns = 1 * kS;
        r.ranks.push_back(k);
    }
    for (uint32_t i = 0; i < 100; ++i) {
        model::FileStats f;
        f.path = "/data/shard-" + std::to_string(i) + ".tar";
        f.dev = (259u << 20) | 1;
        f.ino = 1000 + i;
        f.size = 100 * kMiB;
        f.ops[IOLENS_OP_READ] = op(100, kMiB, kS / 5);
        f.ops[IOLENS_OP_OPEN] = op(1, 0, kS / 1000);
        f.sequential = 99;
        f.random = 1;
        r.files.push_back(f);
    }
    r.files_total = 100;
    for (uint32_t e = 1; e <= 3; ++e) {
        model::EpochStats ep;
        ep.index = e;
        ep.source = iolens::model::EpochSource::Marker;
        ep.start_ns = r.capture.start_mono_ns + (e - 1) * 33 * kS;
        ep.end_ns = ep.start_ns + 33 * kS;
        ep.ops[IOLENS_OP_READ] = op(3'072, kMiB, 6 * kS);
        ep.ops[IOLENS_OP_OPEN] = op(33, 0, kS / 30);
        ep.page_cache = e == 1 ? cache(0, 3 * kGiB, 3 * kGiB) : cache(2'765 * kMiB, 307 * kMiB);
        for (int64_t rank = 0; rank < 2; ++rank) {
            model::EpochRankStats er;
            er.rank = rank;
            er.wall_ns = 33 * kS;
            er.io_time_ns = 3 * kS;
            er.critical_io_ns = kS / 3;
            ep.ranks.push_back(er);
            ep.rank_sums.wall_ns += er.wall_ns;
            ep.rank_sums.io_time_ns += er.io_time_ns;
            ep.rank_sums.critical_io_ns += er.critical_io_ns;
        }
        r.epochs.push_back(ep);
    }
    return r;
}

inline const model::Finding* find(const std::vector<model::Finding>& fs, const std::string& id) {
    for (const auto& f : fs)
        if (f.id == id) return &f;
    return nullptr;
}

}  // namespace iolens::test
