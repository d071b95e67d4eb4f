#include "model/page_cache.h"

#include <algorithm>
#include <cstring>

namespace iolens::model {

std::optional<double> PageCacheStats::hit_ratio() const {
    const uint64_t total = hit_bytes + miss_bytes + fault_bytes + direct_bytes;
    if (total == 0) return std::nullopt;
    return static_cast<double>(hit_bytes) / static_cast<double>(total);
}

bool PageCacheStats::empty() const {
    return hit_bytes == 0 && miss_bytes == 0 && readahead_bytes == 0 && readahead_unused_bytes == 0 &&
           readahead_unread_bytes == 0 && fault_bytes == 0 && major_faults == 0 && evicted_bytes == 0 &&
           evicted_by_job_bytes == 0 && blocked_ns == 0 && direct_bytes == 0;
}

void PageCacheStats::merge(const PageCacheStats& o) {
    hit_bytes += o.hit_bytes;
    miss_bytes += o.miss_bytes;
    readahead_bytes += o.readahead_bytes;
    readahead_unused_bytes += o.readahead_unused_bytes;
    readahead_unread_bytes += o.readahead_unread_bytes;
    fault_bytes += o.fault_bytes;
    major_faults += o.major_faults;
    evicted_bytes += o.evicted_bytes;
    evicted_by_job_bytes += o.evicted_by_job_bytes;
    blocked_ns += o.blocked_ns;
    direct_bytes += o.direct_bytes;
}

void PageCacheStats::add_read(const CacheRead& read) {
    hit_bytes += read.hit_bytes;
    miss_bytes += read.miss_bytes;
    readahead_bytes += read.readahead_bytes;
    blocked_ns += read.blocked_ns;
    direct_bytes += read.direct_bytes;
}

bool is_counted_read(const iolens_syscall_rec& r) {
    // Failed reads return nothing to compare against.
    return r.op == IOLENS_OP_READ && r.ret >= 0;
}

CacheRead split_read(const iolens_syscall_rec& r, uint64_t& prefetched) {
    const auto ret = static_cast<uint64_t>(r.ret);
    // O_DIRECT brings nothing into the cache, and counting its bytes as hits
    // would report a cold direct-I/O loader as perfectly cached.
    if (r.flags & IOLENS_SC_DIRECT) return CacheRead{0, 0, 0, r.blocked_ns, ret};
    CacheRead out{0, r.cache_in_bytes, r.readahead_bytes, r.blocked_ns, 0};
    if (r.cache_in_bytes >= ret) {
        // Brought in at least what it returned: the surplus (readahead) is
        // owed to the stream's later reads.
        prefetched += r.cache_in_bytes - ret;
        return out;
    }
    const uint64_t beyond = ret - r.cache_in_bytes;
    const uint64_t from_prefetch = beyond < prefetched ? beyond : prefetched;
    prefetched -= from_prefetch;
    out.hit_bytes = beyond - from_prefetch;
    return out;
}

void PageCacheStats::add_pagecache(const iolens_pagecache_rec& r) {
    switch (r.kind) {
        case IOLENS_PC_FAULT_IN:
            fault_bytes += r.bytes;
            major_faults += r.majors ? r.majors : (r.flags & IOLENS_PCF_MAJOR_FAULT) ? 1 : 0;
            break;
        case IOLENS_PC_EVICT:
            evicted_bytes += r.bytes;
            if (r.flags & IOLENS_PCF_BY_JOB) evicted_by_job_bytes += r.bytes;
            // Recordings from before readahead tracking: the flag read at
            // deletion. Newer ones are judged from the reads (ReadaheadJudge).
            if (r.flags & IOLENS_PCF_UNREFERENCED) readahead_unused_bytes += r.bytes;
            break;
        case IOLENS_PC_RESIDENT:  // judged from the reads (ReadaheadJudge)
            break;
        default:  // a kind from a newer kernel side: the builder counts it skipped
            break;
    }
}

iolens_pagecache_rec load_pagecache(const void* rec, size_t size) {
    iolens_pagecache_rec r{};
    std::memcpy(&r, rec, std::min(size, sizeof r));
    if (size < sizeof r) r.folios = 1;
    // Before runs the flag alone said it: one major fault.
    if (r.majors == 0 && (r.flags & IOLENS_PCF_MAJOR_FAULT)) r.majors = 1;
    return r;
}

}  // namespace iolens::model
