#pragma once
// How many records a kernel record stands for: a run's calls
// (IOLENS_REC_SYSCALL_RUN, iolens/abi.h), else 1. The kernel counts each call
// as a record (IOLENS_CNT_RECORDS), and so do the recorder and the readers.
#include <cstdint>

#include "iolens/abi.h"

namespace iolens::recording {

inline uint64_t record_calls(const iolens_rec_hdr& hdr) {
    constexpr uint64_t head = IOLENS_SYSCALL_REC_V1_SIZE + sizeof(int64_t);
    if (hdr.type != IOLENS_REC_SYSCALL_RUN || hdr.size < head) return 1;
    return 1 + (hdr.size - head) / sizeof(iolens_syscall_run_entry);
}

}  // namespace iolens::recording
