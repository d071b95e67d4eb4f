#pragma once
// Page-cache aggregates: how much of what the traced reads returned came from
// the cache, how much they (and page faults) brought in, how much readahead was
// wasted, and how long the readers slept waiting. Kept for the whole capture,
// per process and per file; the semantics are in docs/report-schema.md
// ("PageCache").
#include <cstdint>
#include <optional>

#include "iolens/abi.h"

namespace iolens::model {

// One counted read's contribution, the same at every level it is charged to.
struct CacheRead {
    uint64_t hit_bytes = 0;
    uint64_t miss_bytes = 0;
    uint64_t readahead_bytes = 0;
    uint64_t blocked_ns = 0;
    uint64_t direct_bytes = 0;  // an O_DIRECT read: what it returned came from the device
};

// The fields add_read writes come first, together (40 bytes: one cache line
// of the report builder's file entries, whose page-cache events another
// thread adds: report_builder.cpp, FileAccum).
struct PageCacheStats {
    uint64_t hit_bytes = 0;        // bytes reads returned that were cached already (split_read)
    uint64_t miss_bytes = 0;       // bytes reads brought into the cache (readahead included)
    uint64_t readahead_bytes = 0;  // of miss_bytes, brought in once readahead started
    uint64_t blocked_ns = 0;       // uninterruptible sleep inside the counted reads
    uint64_t direct_bytes = 0;     // bytes O_DIRECT reads returned (from the device, past the cache)
    // Of readahead_bytes, evicted before the job read them (judged from the
    // job's reads of the pages between their insertion and their eviction).
    uint64_t readahead_unused_bytes = 0;
    // Of readahead_bytes, still in the cache when recording stopped and not
    // read by then (not evicted: "not read by the end").
    uint64_t readahead_unread_bytes = 0;
    uint64_t fault_bytes = 0;  // brought in by page faults on file mappings
    uint64_t major_faults = 0;
    uint64_t evicted_bytes = 0;
    // Of evicted_bytes, those the job dropped itself (IOLENS_PCF_BY_JOB: its own
    // fadvise DONTNEED, truncate, ...), not reclaim.
    uint64_t evicted_by_job_bytes = 0;

    // The share of the data the job read that the page cache already held:
    // hit / (hit + miss + fault-ins + O_DIRECT reads). Fault-ins (mmap) and
    // direct reads came from the device, so they count against it. Empty
    // when there is nothing to measure (no read moved a byte, nothing
    // faulted in), never 100%.
    std::optional<double> hit_ratio() const;
    // Bytes this level caused to be read into the cache: read misses + fault-ins.
    uint64_t brought_in() const { return miss_bytes + fault_bytes; }
    bool empty() const;
    void merge(const PageCacheStats& o);

    void add_read(const CacheRead& read);
    void add_pagecache(const iolens_pagecache_rec& r);
};

// A page-cache record of any size (IOLENS_PAGECACHE_REC_V1_SIZE or more),
// with the fields older recordings lack filled in: one folio, and one major
// fault when only the flag says so.
iolens_pagecache_rec load_pagecache(const void* rec, size_t size);

// Whether a syscall record carrying the page-cache fields is a counted read:
// class read, successful. An O_DIRECT read bypasses the cache: it counts as
// direct bytes (split_read), never as hits.
bool is_counted_read(const iolens_syscall_rec& r);

// Splits a counted read into hits and misses. `prefetched` belongs to the
// read's stream (one process reading one file): the bytes its earlier reads
// brought into the cache and no read of it has returned yet. Returned bytes
// are matched against what the call brought in, then against `prefetched`;
// only the rest are hits. Without the stream, the read that starts an async
// readahead (returning cached bytes while bringing in the next window) would
// make every other read of that window look like a hit: a cold sequential
// read would show a hit ratio near 50%.
CacheRead split_read(const iolens_syscall_rec& r, uint64_t& prefetched);

}  // namespace iolens::model
