#include "probes/run_stats.h"

#include <bpf/bpf.h>

#include <cerrno>
#include <fstream>

#include "util/errno_text.h"

namespace iolens::probes {

namespace {

bool sysctl_stats_on() {
    std::ifstream in("/proc/sys/kernel/bpf_stats_enabled");
    int v = 0;
    return in >> v && v != 0;
}

}  // namespace

bool RunStats::enable() {
    const int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
    if (fd < 0) return false;
    fd_.reset(fd);
    return true;
}

void RunStats::disable(uint64_t now) {
    if (!fd_) return;
    fd_.reset();
    on_ns_ += now - window_start_ns_;
}

bool RunStats::start(uint64_t now, bool always) {
    always_on_ = always || sysctl_stats_on();
    if (!enable()) {
        const int err = errno;
        unavailable_ = err == EINVAL ? "this kernel has no BPF run-time statistics (BPF_ENABLE_STATS, 5.8+)"
                                     : "cannot enable BPF run-time statistics: " + errno_text(err);
        return false;
    }
    unavailable_.clear();
    start_ns_ = window_start_ns_ = now;
    return true;
}

void RunStats::tick(uint64_t now, bool busy) {
    if (!available() || always_on_ || stop_ns_) return;
    const uint64_t elapsed = now - start_ns_;
    if (!busy)
        busy_since_ = 0;
    else if (busy_since_ == 0)
        busy_since_ = now;
    // The first window: kFirstWindowNs, and on until the job has been at work
    // (records at every tick) for that long, up to kFirstWindowMaxNs.
    const bool worked = busy_since_ != 0 && now - busy_since_ >= kFirstWindowNs;
    if (!first_done_ && elapsed >= kFirstWindowNs && (worked || elapsed >= kFirstWindowMaxNs))
        first_done_ = true;
    // Windows half a period after each multiple of it: a capture of a few
    // seconds gets one past its start-up too ([2.5 s, 2.75 s)), not only its
    // first window.
    const bool in_window = !first_done_ || (elapsed + kPeriodNs / 2) % kPeriodNs < kWindowNs;
    if (fd_ && !in_window) {
        disable(now);
    } else if (!fd_ && in_window && enable()) {
        window_start_ns_ = now;
    }
}

void RunStats::stop(uint64_t now) {
    if (!available() || stop_ns_) return;
    disable(now);
    stop_ns_ = now;
}

double RunStats::sampled_share() const {
    if (always_on_) return 1.0;
    const uint64_t span = (stop_ns_ ? stop_ns_ : start_ns_) - start_ns_;
    if (span == 0 || on_ns_ >= span) return 1.0;
    return static_cast<double>(on_ns_) / static_cast<double>(span);
}

}  // namespace iolens::probes
