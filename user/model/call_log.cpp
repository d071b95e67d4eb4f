#include "model/call_log.h"

#include <sys/mman.h>

#include <cstdlib>
#include <new>

namespace iolens::model {

namespace {

// What a call shares with the previous one: its fields are then not stored.
enum : uint8_t {
    kSamePid = 1u << 0,
    kTidIsPid = 1u << 1,
    kRequestedIsBytes = 1u << 2,
    kNoBlocked = 1u << 3,
    kNoCache = 1u << 4,  // hit, miss and readahead bytes all 0
    kSamePacked = 1u << 5,
    kNoBytes = 1u << 6,
};

uint8_t* put(uint8_t* p, uint64_t v) {
    while (v >= 0x80) {
        *p++ = static_cast<uint8_t>(v | 0x80);
        v >>= 7;
    }
    *p++ = static_cast<uint8_t>(v);
    return p;
}

const uint8_t* get(const uint8_t* p, uint64_t& v) {
    v = 0;
    for (int shift = 0;; shift += 7) {
        const uint8_t b = *p++;
        v |= uint64_t{b & 0x7fu} << shift;
        if (!(b & 0x80)) return p;
    }
}

// Start times go up, but not strictly (records arrive in completion order).
uint64_t zigzag(uint64_t delta) {
    const auto d = static_cast<int64_t>(delta);
    return (static_cast<uint64_t>(d) << 1) ^ static_cast<uint64_t>(d >> 63);
}
uint64_t unzigzag(uint64_t z) { return (z >> 1) ^ (~(z & 1) + 1); }

}  // namespace

void CallLog::push_back(const CallEvent& e) {
    if (blocks_.empty() || kBlockBytes - blocks_.back().used < kMaxRecordBytes) {
        // Not zeroed: only the bytes written are ever read.
        void* p = std::aligned_alloc(kBlockBytes, kBlockBytes);
        if (!p) throw std::bad_alloc();
        // A hint (without THP, plain pages); not the first block: a small
        // capture touches a few pages of it, not a whole huge page.
        if (!blocks_.empty()) madvise(p, kBlockBytes, MADV_HUGEPAGE);
        blocks_.push_back({std::unique_ptr<uint8_t[], Block::Free>(static_cast<uint8_t*>(p)), 0, 0});
    }
    Block& b = blocks_.back();
    uint8_t* const start = b.data.get() + b.used;
    uint8_t flags = 0;
    if (e.pid == prev_.pid) flags |= kSamePid;
    if (e.tid == e.pid) flags |= kTidIsPid;
    if (e.requested == e.bytes) flags |= kRequestedIsBytes;
    if (e.blocked_ns == 0) flags |= kNoBlocked;
    if (e.hit_bytes == 0 && e.miss_bytes == 0 && e.readahead_bytes == 0) flags |= kNoCache;
    if (e.packed == prev_.packed) flags |= kSamePacked;
    if (e.bytes == 0) flags |= kNoBytes;
    uint8_t* p = start;
    *p++ = flags;
    p = put(p, zigzag(e.start_ns - prev_.start_ns));
    p = put(p, e.duration_ns);
    if (!(flags & kNoBytes)) p = put(p, e.bytes);
    if (!(flags & kRequestedIsBytes)) p = put(p, e.requested);
    if (!(flags & kNoBlocked)) p = put(p, e.blocked_ns);
    if (!(flags & kNoCache)) {
        p = put(p, e.hit_bytes);
        p = put(p, e.miss_bytes);
        p = put(p, e.readahead_bytes);
    }
    if (!(flags & kSamePid)) p = put(p, e.pid);
    if (!(flags & kTidIsPid)) p = put(p, e.tid);
    if (!(flags & kSamePacked)) p = put(p, e.packed);
    b.used += static_cast<size_t>(p - start);
    b.calls++;
    count_++;
    prev_ = e;
}

void CallLog::Block::Free::operator()(uint8_t* p) const { std::free(p); }

size_t CallLog::bytes() const { return blocks_.size() * kBlockBytes; }

bool CallLog::Cursor::next(CallEvent& e) {
    while (left_ == 0) {
        const size_t b = started_ ? block_ + 1 : 0;
        if (b >= log_->blocks_.size()) return false;
        block_ = b;
        started_ = true;
        pos_ = 0;
        left_ = log_->blocks_[b].calls;
    }
    const uint8_t* p = log_->blocks_[block_].data.get() + pos_;
    const uint8_t* const start = p;
    const uint8_t flags = *p++;
    uint64_t v = 0;
    p = get(p, v);
    e.start_ns = prev_.start_ns + unzigzag(v);
    p = get(p, e.duration_ns);
    e.bytes = 0;
    if (!(flags & kNoBytes)) p = get(p, e.bytes);
    e.requested = e.bytes;
    if (!(flags & kRequestedIsBytes)) p = get(p, e.requested);
    e.blocked_ns = 0;
    if (!(flags & kNoBlocked)) p = get(p, e.blocked_ns);
    e.hit_bytes = e.miss_bytes = e.readahead_bytes = 0;
    if (!(flags & kNoCache)) {
        p = get(p, v);
        e.hit_bytes = static_cast<uint32_t>(v);
        p = get(p, v);
        e.miss_bytes = static_cast<uint32_t>(v);
        p = get(p, v);
        e.readahead_bytes = static_cast<uint32_t>(v);
    }
    e.pid = prev_.pid;
    if (!(flags & kSamePid)) {
        p = get(p, v);
        e.pid = static_cast<uint32_t>(v);
    }
    e.tid = e.pid;
    if (!(flags & kTidIsPid)) {
        p = get(p, v);
        e.tid = static_cast<uint32_t>(v);
    }
    e.packed = prev_.packed;
    if (!(flags & kSamePacked)) {
        p = get(p, v);
        e.packed = static_cast<uint32_t>(v);
    }
    pos_ += static_cast<size_t>(p - start);
    left_--;
    prev_ = e;
    return true;
}

}  // namespace iolens::model
