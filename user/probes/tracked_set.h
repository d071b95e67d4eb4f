#pragma once
// User space's view of the kernel's tracked-process bitmap (one bit per tgid),
// mapped into our address space so bits can be set with atomic operations that
// never clobber the kernel's concurrent updates to the same word.
#include <cstddef>
#include <cstdint>

#include "util/result.h"

namespace iolens::probes {

class TrackedSet {
public:
    TrackedSet() = default;
    ~TrackedSet();
    TrackedSet(const TrackedSet&) = delete;
    TrackedSet& operator=(const TrackedSet&) = delete;

    Result<void> map(int map_fd, size_t words);
    // False when pid does not fit the bitmap (above pid_max at load time).
    bool add(uint32_t pid);
    bool contains(uint32_t pid) const;

private:
    uint64_t* words_ = nullptr;
    size_t count_ = 0;
    size_t mapped_bytes_ = 0;
};

}  // namespace iolens::probes
