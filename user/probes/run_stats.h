#pragma once
// The kernel's BPF run-time statistics (BPF_ENABLE_STATS), sampled: while they
// are on, the kernel times every run of every BPF program, which costs two
// clock reads per run (measured here: ~140 ns added to each traced syscall,
// more than half of iolens's own cost). So after the first kFirstWindowNs,
// which they cover whole, they are on only for windows (kWindowNs out of
// every kPeriodNs), and each family's time is scaled to the whole capture by
// its runs: the programs count every run themselves (bpf/common.bpf.h,
// iolens_runs), the windows give the time per run (RecordSession). An
// estimate, reported as one; a run shorter than the first window is
// measured exactly. The time per run must come from the job at work: the
// runs of a job that idles (a sleep, a wait) are other tasks' syscalls and
// context switches, which the programs filter out at once, and a window of
// those only would make the estimate several times low (scaled by the share
// of time the windows covered, a 340 ms job that idled first was ~9x low
// from its first 100 ms). So the first window lasts until the job has
// produced records at every tick for kFirstWindowNs, or kFirstWindowMaxNs
// at most. The windows are rare: each switch patches the kernel's
// static key, which costs the recorder ~5 ms of CPU here (with a 100 ms
// window every second those switches were two thirds of the recorder's CPU
// during a capture: perf, bench workload (a)). And short: while on, the
// statistics cost two clock reads a run, and a first second plus 500 ms of
// every 5 s kept them on for 44% of a 3.4 s job, 51-102 ns a call more than
// with them off (bench workload (a), three runs; docs/benchmarks.md).
#include <cstdint>
#include <string>

#include "util/fd.h"

namespace iolens::probes {

class RunStats {
public:
    static constexpr uint64_t kFirstWindowNs = 250'000'000;       // on for the first 250 ms of work,
    static constexpr uint64_t kFirstWindowMaxNs = 1'000'000'000;  // (at most the first second)
    static constexpr uint64_t kWindowNs = 250'000'000;            // then for 250 ms...
    static constexpr uint64_t kPeriodNs = 5'000'000'000;          // ...of every 5 seconds, from 2.5 s

    RunStats() = default;
    RunStats(const RunStats&) = delete;
    RunStats& operator=(const RunStats&) = delete;

    // Starts sampling at `now` (CLOCK_MONOTONIC ns) with a first window, or
    // with one window for the whole capture if `always`.
    // False, with unavailable() saying why, where the kernel cannot keep the
    // statistics (before 5.8) or refuses.
    bool start(uint64_t now, bool always = false);
    // Opens or closes a window as the schedule says; call it often (the
    // record loop does, about every 50 ms). busy: the job produced records
    // since the last tick.
    void tick(uint64_t now, bool busy = true);
    // Ends sampling at `now`.
    void stop(uint64_t now);

    bool available() const { return unavailable_.empty(); }
    const std::string& unavailable() const { return unavailable_; }
    // Share of [start, stop] the statistics were on (1 if someone else, e.g.
    // the kernel.bpf_stats_enabled sysctl, kept them on all the time).
    double sampled_share() const;

private:
    bool enable();
    void disable(uint64_t now);

    UniqueFd fd_;             // BPF_ENABLE_STATS: the statistics are on while it is open
    bool always_on_ = false;  // the sysctl was already on: every run is timed
    uint64_t start_ns_ = 0, stop_ns_ = 0;
    uint64_t window_start_ns_ = 0;  // of the open window
    uint64_t on_ns_ = 0;            // closed windows' total
    uint64_t busy_since_ = 0;       // ticks busy without a break since then (0: the last was idle)
    bool first_done_ = false;       // the first window has closed
    std::string unavailable_ = "BPF run-time statistics were not requested";
};

}  // namespace iolens::probes
