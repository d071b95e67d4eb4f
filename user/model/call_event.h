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

    int op() const { return op_of(packed); }
    uint32_t flags() const { return flags_of(packed); }
    uint32_t file() const { return file_of(packed); }
    bool has(Flag f) const { return flags() & f; }
    static int op_of(uint32_t packed) { return static_cast<int>(packed & 0xf); }
    static uint32_t flags_of(uint32_t packed) { return (packed >> 4) & 0x7f; }
    static uint32_t file_of(uint32_t packed) { return packed >> 11; }
    CacheRead cache_read() const {
        if (has(kDirect)) return {0, 0, 0, blocked_ns, bytes};
        return {hit_bytes, miss_bytes, readahead_bytes, blocked_ns, 0};
    }
};
static_assert(sizeof(CallEvent) == 64, "CallEvent is meant to stay 64 bytes");

// What the walks of each rank's calls in start order (start_order.h: the
// epoch inference, the stalls) read of a call: its time, bytes, process,
// thread, class, flags and file. The reorder buffer holds these (with its
// own two fields, 48 bytes an entry) where whole CallEvents took 80: a
// 200,000-file job's two walks held 15 MiB each so. A sink that needs
// another field of the call must take it from the log's own walk (the
// `every` callback of dl_attribution.cpp's walk), not from here.
struct OrderedCall {
    uint64_t start_ns = 0;
    uint64_t duration_ns = 0;
    uint64_t bytes = 0;
    uint32_t pid = 0;
    uint32_t tid = 0;
    uint32_t packed = 0;  // as CallEvent::packed

    OrderedCall() = default;
    OrderedCall(uint64_t start, uint64_t duration, uint64_t b, uint32_t p, uint32_t t, uint32_t pk)
        : start_ns(start), duration_ns(duration), bytes(b), pid(p), tid(t), packed(pk) {}
    // Implicit: a CallEvent is handed wherever an OrderedCall is taken.
    OrderedCall(const CallEvent& e)  // NOLINT(google-explicit-constructor)
        : OrderedCall(e.start_ns, e.duration_ns, e.bytes, e.pid, e.tid, e.packed) {}

    int op() const { return CallEvent::op_of(packed); }
    uint32_t flags() const { return CallEvent::flags_of(packed); }
    uint32_t file() const { return CallEvent::file_of(packed); }
    bool has(CallEvent::Flag f) const { return flags() & f; }
};

}  // namespace iolens::model
