#include "model/dl_log.h"

#include <algorithm>

namespace iolens::model {

namespace {
uint32_t sat32(uint64_t v) { return static_cast<uint32_t>(std::min<uint64_t>(v, UINT32_MAX)); }
}  // namespace

CallEvent make_call_event(const iolens_syscall_rec& r, const std::optional<CacheRead>& cache,
                          uint32_t file_index) {
    CallEvent e;
    e.start_ns = r.start_ns;
    e.duration_ns = r.duration_ns;
    e.requested = r.requested;
    // A vectored call of more than 16 iovecs: the kernel side summed only the
    // first ones. What came back was asked for too, so requested is never
    // below it (a lower bound, flagged IOLENS_SC_IOV_TRUNC).
    if ((r.flags & IOLENS_SC_IOV_TRUNC) && r.ret > 0 && static_cast<uint64_t>(r.ret) > e.requested)
        e.requested = static_cast<uint64_t>(r.ret);
    e.blocked_ns = r.blocked_ns;
    e.pid = r.pid;
    e.tid = r.tid;
    uint32_t flags = 0;
    if (r.ret < 0) {
        flags |= CallEvent::kError;
    } else {
        switch (r.op) {
            case IOLENS_OP_READ:
            case IOLENS_OP_WRITE:
            case IOLENS_OP_READDIR:
                e.bytes = static_cast<uint64_t>(r.ret);
                flags |= CallEvent::kHasSize;
                break;
            // mmap: ret is the address and nothing moved; the mapping's length is
            // requested_bytes, and what it brought in is the page cache's fault_bytes.
            default:
                break;
        }
    }
    if (r.flags & IOLENS_SC_REGULAR) flags |= CallEvent::kRegular;
    if ((r.op == IOLENS_OP_READ || r.op == IOLENS_OP_WRITE) && r.offset == 0) flags |= CallEvent::kOffsetZero;
    if (cache) {
        flags |= CallEvent::kCountedRead;
        if (r.flags & IOLENS_SC_DIRECT) flags |= CallEvent::kDirect;
        e.hit_bytes = sat32(cache->hit_bytes);
        e.miss_bytes = sat32(cache->miss_bytes);
        e.readahead_bytes = sat32(cache->readahead_bytes);
    }
    const int path = (r.flags & IOLENS_SC_PATH_MASK) >> IOLENS_SC_PATH_SHIFT;
    if (path == IOLENS_PATH_AIO || path == IOLENS_PATH_IO_URING) flags |= CallEvent::kAsync;
    e.packed =
        (static_cast<uint32_t>(r.op) & 0xf) | (flags << 4) | (std::min(file_index, CallEvent::kNoFile) << 11);
    return e;
}

void account(OpStats& s, const CallEvent& e) {
    s.calls++;
    s.time_ns += e.duration_ns;
    s.blocked_ns += e.blocked_ns;  // 0 in records without the field
    s.latency_ns.add(e.duration_ns);
    s.requested_bytes += e.requested;
    if (e.has(CallEvent::kError)) {
        s.errors++;
        return;
    }
    if (e.has(CallEvent::kHasSize)) {
        s.bytes += e.bytes;
        s.size_bytes.add(e.bytes);
    }
}

void account_path(PathOps& s, const CallEvent& e, bool offloaded) {
    s.calls++;
    s.offloaded += offloaded;
    s.time_ns += e.duration_ns;
    s.requested_bytes += e.requested;
    if (e.has(CallEvent::kError))
        s.errors++;
    else if (e.has(CallEvent::kHasSize))
        s.bytes += e.bytes;
}

iolens_pagecache_rec PageCacheEvent::as_record() const {
    iolens_pagecache_rec r{};
    r.kind = kind;
    r.flags = flags;
    r.pid = pid;
    r.bytes = bytes;
    r.ts_ns = ts_ns;
    r.majors = majors;
    return r;
}

iolens_block_rec BlockEvent::as_record() const {
    iolens_block_rec r{};
    r.op = op;
    r.pid = pid;
    r.bytes = bytes;
    r.issue_ns = issue_ns;
    return r;
}

uint32_t DlLog::add_file() {
    if (files_ >= CallEvent::kNoFile) return CallEvent::kNoFile;
    return files_++;
}

namespace {
// BlockLog's flags byte.
enum : uint8_t { kBlockSamePid = 1u << 0, kBlockSameOp = 1u << 1, kBlockInPages = 1u << 2 };
constexpr unsigned kBlockPageShift = 12;
}  // namespace

void BlockLog::push_back(const BlockEvent& e) {
    if (chunks_.empty() || kChunkBytes - chunks_.back().used < kMaxRecordBytes)
        chunks_.push_back({std::make_unique_for_overwrite<uint8_t[]>(kChunkBytes), 0});
    Chunk& c = chunks_.back();
    uint8_t* const start = c.data.get() + c.used;
    const bool in_pages = (e.bytes & ((1u << kBlockPageShift) - 1)) == 0;
    uint8_t flags = in_pages ? kBlockInPages : 0;
    if (e.pid == prev_.pid) flags |= kBlockSamePid;
    if (e.op == prev_.op) flags |= kBlockSameOp;
    uint8_t* p = start;
    *p++ = flags;
    if (!(flags & kBlockSameOp)) *p++ = e.op;
    p = util::put_varint(p, util::zigzag(e.issue_ns - prev_.issue_ns));
    if (!(flags & kBlockSamePid)) p = util::put_varint(p, e.pid);
    p = util::put_varint(p, in_pages ? e.bytes >> kBlockPageShift : e.bytes);
    c.used += static_cast<size_t>(p - start);
    count_++;
    prev_ = e;
}

bool BlockLog::Cursor::next(BlockEvent& e) {
    while (chunk_ < log_->chunks_.size() && pos_ == log_->chunks_[chunk_].used) {
        chunk_++;
        pos_ = 0;
    }
    if (chunk_ == log_->chunks_.size()) return false;
    const uint8_t* const start = log_->chunks_[chunk_].data.get() + pos_;
    const uint8_t* p = start;
    const uint8_t flags = *p++;
    if (!(flags & kBlockSameOp)) prev_.op = *p++;
    uint64_t v = 0;
    p = util::get_varint(p, v);
    prev_.issue_ns += util::unzigzag(v);
    if (!(flags & kBlockSamePid)) {
        p = util::get_varint(p, v);
        prev_.pid = static_cast<uint32_t>(v);
    }
    p = util::get_varint(p, v);
    prev_.bytes = static_cast<uint32_t>(flags & kBlockInPages ? v << kBlockPageShift : v);
    pos_ += static_cast<size_t>(p - start);
    e = prev_;
    return true;
}

}  // namespace iolens::model
