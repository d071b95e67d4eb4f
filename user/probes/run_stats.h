#pragma once
// The kernel's BPF run-time statistics (BPF_ENABLE_STATS), sampled: while they
// are on, the kernel times every run of every BPF program, which costs two
// clock reads per run (measured here: ~140 ns added to each traced syscall,
// more than half of iolens's own cost). So after the first kFirstWindowNs,
// which they cover whole, they are on only for windows (kWindowNs out of
// every kPeriodNs) and the totals are scaled by the share of the capture
// they covered: an estimate, reported as one. A run shorter than the first
// window is measured exactly (a 340 ms job's estimate, from its first 100 ms
// of start-up, was ~9x low). The windows are long and rare rather than short
// and frequent: each switch patches the kernel's static key, which costs the
// recorder ~5 ms of CPU here. With a 100 ms window every second those
// switches were two thirds of the recorder's CPU during a capture (perf,
// bench workload (a)); 500 ms every 5 s samples the same share with a fifth
// of the switches.
#include <cstdint>
#include <string>

#include "util/fd.h"

namespace iolens::probes {

class RunStats {
public:
    static constexpr uint64_t kFirstWindowNs = 1'000'000'000;  // on for the first second,
    static constexpr uint64_t kWindowNs = 500'000'000;         // then for 500 ms...
    static constexpr uint64_t kPeriodNs = 5'000'000'000;       // ...of every 5 seconds, from 2.5 s

    RunStats() = default;
    RunStats(const RunStats&) = delete;
    RunStats& operator=(const RunStats&) = delete;

    // Starts sampling at `now` (CLOCK_MONOTONIC ns) with a first window, or
    // with one window for the whole capture if `always`.
    // False, with unavailable() saying why, where the kernel cannot keep the
    // statistics (before 5.8) or refuses.
    bool start(uint64_t now, bool always = false);
    // Opens or closes a window as the schedule says; call it often (the
    // record loop does, at least every 50 ms).
    void tick(uint64_t now);
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
    std::string unavailable_ = "BPF run-time statistics were not requested";
};

}  // namespace iolens::probes
