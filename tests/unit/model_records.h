#pragma once
// Synthetic kernel record streams for the page-cache and block tests: the
// iolens/abi.h structs appended back to back, as the ring buffer delivers them.
#include <cstddef>
#include <cstring>
#include <span>
#include <vector>

#include "iolens/abi.h"
#include "recording/record_buffer.h"

namespace iolens::test {

inline constexpr uint32_t kFsDev = (253u << 20) | 1;  // vda1
inline constexpr uint32_t kDiskDev = (253u << 20);    // vda

class Records {
public:
    struct Read {
        uint32_t pid = 100;
        int op = IOLENS_OP_READ;
        int64_t ret = 4096;
        uint64_t ino = 7;  // 0: no file identity
        uint64_t cache_in = 0;
        uint64_t readahead = 0;
        uint64_t blocked = 0;
        uint8_t extra_flags = 0;  // e.g. IOLENS_SC_DIRECT
        bool v1 = false;          // a 72-byte record, before the page-cache fields
    };
    Records& syscall(const Read& c) {
        iolens_syscall_rec r{};
        r.op = static_cast<uint8_t>(c.op);
        r.flags = static_cast<uint8_t>((c.ino ? IOLENS_SC_HAS_FILE | IOLENS_SC_REGULAR : 0) | c.extra_flags);
        r.pid = r.tid = c.pid;
        r.duration_ns = 1000;
        r.ret = c.ret;
        r.requested = c.ret > 0 ? static_cast<uint64_t>(c.ret) : 4096;
        r.offset = 0;
        r.ino = c.ino;
        r.dev = c.ino ? kFsDev : 0;
        r.fd = c.ino ? 3 : -1;
        r.cache_in_bytes = c.cache_in;
        r.readahead_bytes = c.readahead;
        r.blocked_ns = c.blocked;
        buf.syscall(r, c.v1);
        return *this;
    }
    Records& pagecache(uint8_t kind, uint8_t flags, uint32_t pid, uint64_t ino, uint64_t bytes) {
        iolens_pagecache_rec r{};
        r.kind = kind;
        r.flags = flags;
        r.pid = r.tid = pid;
        r.dev = kFsDev;
        r.ino = ino;
        r.bytes = bytes;
        buf.pagecache(r);
        return *this;
    }
    struct Block {
        uint8_t op = IOLENS_BLK_READ;
        uint8_t flags = 0;
        uint16_t depth = 1;
        uint32_t dev = kDiskDev;
        uint32_t pid = 0;
        uint32_t bytes = 4096;
        uint64_t sector = 0;
        uint64_t issue_ns = 0;
        uint64_t queue_ns = 0;
        uint64_t service_ns = 100'000;
    };
    Records& block(const Block& b) {
        iolens_block_rec r{};
        r.op = b.op;
        r.flags = b.flags;
        r.depth = b.depth;
        r.dev = b.dev;
        r.pid = b.pid;
        r.bytes = b.bytes;
        r.sector = b.sector;
        r.issue_ns = b.issue_ns;
        r.queue_ns = b.queue_ns;
        r.service_ns = b.service_ns;
        buf.block(r);
        return *this;
    }
    Records& raw(const void* p, size_t n) {
        buf.raw(p, n);
        return *this;
    }
    std::span<const std::byte> span() const { return buf.bytes(); }

    recording::RecordBuffer buf;
};

}  // namespace iolens::test
