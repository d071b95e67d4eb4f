#pragma once
// One call as the DL attribution needs it (see dl_log.h): exactly what
// account() and the page-cache split need, so per-epoch tables equal the
// whole-capture ones. Stored compactly by CallLog (call_log.h).
#include <cstdint>

#include "model/page_cache.h"

namespace iolens::model {

struct CallEvent {
    enum Flag : uint32_t {
        kError = 1u << 0,        // ret < 0
        kHasSize = 1u << 1,      // moved bytes: counts in bytes and size_bytes
        kRegular = 1u << 2,      // a regular file (IOLENS_SC_REGULAR)
        kOffsetZero = 1u << 3,   // a read/write that started at offset 0
        kCountedRead = 1u << 4,  // is_counted_read with page-cache fields: cache_read() applies
        kDirect = 1u << 5,       // with kCountedRead: an O_DIRECT read (its bytes are direct_bytes)
        kAsync = 1u << 6,        // an AIO or io_uring request: submission to completion, no thread waited
    };
    static constexpr uint32_t kNoFile = (1u << 21) - 1;

    uint64_t start_ns = 0;
    uint64_t duration_ns = 0;
    uint64_t bytes = 0;  // OpStats::bytes contribution (when kHasSize)
    uint64_t requested = 0;
    uint64_t blocked_ns = 0;
    uint32_t hit_bytes = 0;  // CacheRead, saturated at 4 GiB (a read returns < 2 GiB)
    uint32_t miss_bytes = 0;
    uint32_t readahead_bytes = 0;
    uint32_t pid = 0;
    uint32_t tid = 0;
    uint32_t packed = 0;  // op:4 | flags:7 | file index:21 (kNoFile: none, or > 2M files)

    int op() const { return static_cast<int>(packed & 0xf); }
    uint32_t flags() const { return (packed >> 4) & 0x7f; }
    uint32_t file() const { return packed >> 11; }
    bool has(Flag f) const { return flags() & f; }
    CacheRead cache_read() const {
        if (has(kDirect)) return {0, 0, 0, blocked_ns, bytes};
        return {hit_bytes, miss_bytes, readahead_bytes, blocked_ns, 0};
    }
};
static_assert(sizeof(CallEvent) == 64, "CallEvent is meant to stay 64 bytes");

}  // namespace iolens::model
