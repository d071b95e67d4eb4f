#pragma once
// User space's view of the kernel's tracked-process set (one byte per tgid,
// bpf/common.bpf.h), mapped into our address space: a byte store never
// clobbers the kernel's concurrent updates to the neighbouring bytes.
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

    // Bytes (one per pid) in the map; BPF array slots hold 8 each.
    static size_t slots_for(unsigned pid_max) { return (pid_max + 7) / 8; }
    Result<void> map(int map_fd, size_t slots);
    // False when pid does not fit the set (above pid_max at load time).
    bool add(uint32_t pid);
    bool contains(uint32_t pid) const;

private:
    uint8_t* bytes_ = nullptr;
    size_t count_ = 0;  // pids covered
    size_t mapped_bytes_ = 0;
};

}  // namespace iolens::probes
