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

bool RunStats::start(bool always) {
    sysctl_on_ = sysctl_stats_on();
    if (!always || sysctl_on_) return true;
    const int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
    if (fd < 0) {
        const int err = errno;
        unavailable_ = err == EINVAL ? "this kernel has no BPF run-time statistics (BPF_ENABLE_STATS, 5.8+)"
                                     : "cannot enable BPF run-time statistics: " + errno_text(err);
        return false;
    }
    fd_.reset(fd);
    enabled_ = true;
    return true;
}

void RunStats::stop() { fd_.reset(); }

}  // namespace iolens::probes
