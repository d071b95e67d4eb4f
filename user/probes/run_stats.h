#pragma once
// The kernel's BPF run-time statistics (BPF_ENABLE_STATS): while an instance
// is alive, the kernel times every BPF program run, so iolens can report what
// its probes cost. The kernel keeps the statistics on as long as any holder's
// file descriptor is open; closing ours (destructor) restores the default.
#include <string>

namespace iolens::probes {

class RunStats {
public:
    RunStats() = default;
    RunStats(const RunStats&) = delete;
    RunStats& operator=(const RunStats&) = delete;
    ~RunStats();

    // Turns the statistics on. False, with unavailable() saying why, where the
    // kernel cannot (before 5.8) or refuses.
    bool enable();
    bool enabled() const { return fd_ >= 0; }
    const std::string& unavailable() const { return unavailable_; }

private:
    int fd_ = -1;
    std::string unavailable_ = "BPF run-time statistics were not requested";
};

}  // namespace iolens::probes
