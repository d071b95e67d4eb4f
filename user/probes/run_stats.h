#pragma once
// How the BPF programs' run time is measured.
//
// By default the programs measure themselves: every run is counted and one
// in 2^IOLENS_TIMED_SHIFT (64) is timed, from its start to its end, by the
// program itself (bpf/common.bpf.h, iolens_runs), and the recorder scales
// the timed runs' time to all the runs (RecordSession::measure_cost). The
// timed runs are spread over the whole capture and every program, so the
// estimate follows the job at work, whatever it did when.
//
// The kernel's BPF run-time statistics (BPF_ENABLE_STATS) time every run of
// every program, but they are a static key: switching them on or off
// patches the kernel's text, which cost the recorder ~5 ms of CPU per switch
// on this VM and stalls every CPU meanwhile (with windows of 250 ms every
// 5 s, half the recorder's CPU on a PyTorch job: docs/benchmarks.md), and
// while on they add two clock reads to every run (~140 ns a traced syscall
// here). So they are only used as a reference: on throughout with `record
// --bpf-stats always`, or when someone else keeps them on (the
// kernel.bpf_stats_enabled sysctl), in which case every run is measured.
#include <cstdint>
#include <string>

#include "util/fd.h"

namespace iolens::probes {

class RunStats {
public:
    RunStats() = default;
    RunStats(const RunStats&) = delete;
    RunStats& operator=(const RunStats&) = delete;

    // Turns the kernel's statistics on for the whole capture if `always`;
    // else only notes whether someone else keeps them on. False, with
    // unavailable() saying why, where the kernel cannot keep them (before
    // 5.8) or refuses.
    bool start(bool always);
    // Ends the capture's statistics (if this turned them on).
    void stop();

    // Every run of every program was timed by the kernel during the capture:
    // its figures are exact, no estimate is needed.
    bool kernel_throughout() const { return sysctl_on_ || enabled_; }
    bool available() const { return unavailable_.empty(); }
    const std::string& unavailable() const { return unavailable_; }

private:
    UniqueFd fd_;           // BPF_ENABLE_STATS: the statistics are on while it is open
    bool enabled_ = false;  // this turned them on for the capture
    bool sysctl_on_ = false;
    std::string unavailable_;
};

}  // namespace iolens::probes
