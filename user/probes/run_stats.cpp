#include "probes/run_stats.h"

#include <bpf/bpf.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace iolens::probes {

RunStats::~RunStats()
{
    if (fd_ >= 0)
        close(fd_);
}

bool RunStats::enable()
{
    if (fd_ >= 0)
        return true;
    fd_ = bpf_enable_stats(BPF_STATS_RUN_TIME);
    if (fd_ < 0) {
        const int err = errno;
        unavailable_ = err == EINVAL ? "this kernel has no BPF run-time statistics (BPF_ENABLE_STATS, 5.8+)"
                                     : std::string("cannot enable BPF run-time statistics: ") + std::strerror(err);
        return false;
    }
    unavailable_.clear();
    return true;
}

}  // namespace iolens::probes
