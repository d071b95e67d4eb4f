#pragma once
// Clock readings in nanoseconds. CLOCK_MONOTONIC is the clock of every kernel
// record (bpf_ktime_get_ns); CLOCK_REALTIME anchors it to wall time.
#include <time.h>

#include <cstdint>

namespace iolens {

inline uint64_t clock_ns(clockid_t clock) {
    timespec ts{};
    clock_gettime(clock, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

inline uint64_t monotonic_ns() { return clock_ns(CLOCK_MONOTONIC); }

}  // namespace iolens
