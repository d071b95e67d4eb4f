#include "model/call_log.h"

#include "util/huge_pages.h"

namespace iolens::model {

namespace {

// The flags byte: what a call shares with the previous one (its fields are
// then not stored), and the shape of its bytes and page-cache split.
enum : uint8_t {
    kSamePid = 1u << 0,
    kTidShift = 1,  // 2 bits: TidMode
    kSamePacked = 1u << 3,
    kShapeShift = 4,  // 3 bits: Shape
    kRare = 1u << 7,  // a second byte follows: RareFlags
};
enum TidMode : uint8_t { kTidIsPid = 0, kTidIsPrevious = 1, kTidStored = 2 };
// bytes and (hit, miss, readahead): the common cases store only bytes.
enum Shape : uint8_t {
    kNothing = 0,    // bytes 0, no page-cache fields
    kBytesOnly = 1,  // bytes stored, no page-cache fields
    kAllHit = 2,     // bytes stored; hit = bytes, miss = readahead = 0
    kAllMiss = 3,    // bytes stored; hit = 0, miss = bytes; readahead stored
    kFull = 4,       // bytes, hit, miss and readahead stored
};
enum RareFlags : uint8_t { kRequestedStored = 1u << 0, kBlockedStored = 1u << 1 };

Shape shape_of(const CallEvent& e) {
    const bool no_cache = e.hit_bytes == 0 && e.miss_bytes == 0 && e.readahead_bytes == 0;
    if (no_cache) return e.bytes == 0 ? kNothing : kBytesOnly;
    if (e.hit_bytes == e.bytes && e.miss_bytes == 0 && e.readahead_bytes == 0) return kAllHit;
    if (e.hit_bytes == 0 && e.miss_bytes == e.bytes) return kAllMiss;
    return kFull;
}

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
        // Huge pages are a hint (without THP, plain pages); not for the first
        // block: a small capture touches a few pages of it, not a whole huge page.
        void* p = util::huge_alloc(kBlockBytes, !blocks_.empty());
        blocks_.push_back({std::unique_ptr<uint8_t[], Block::Free>(static_cast<uint8_t*>(p)), 0, 0});
    }
    Block& b = blocks_.back();
    uint8_t* const start = b.data.get() + b.used;
    const Shape shape = shape_of(e);
    const uint8_t tid_mode = e.tid == e.pid ? kTidIsPid : e.tid == prev_tid_ ? kTidIsPrevious : kTidStored;
    uint8_t flags = static_cast<uint8_t>(shape << kShapeShift | tid_mode << kTidShift);
    if (e.pid == prev_pid_) flags |= kSamePid;
    if (e.packed == prev_packed_) flags |= kSamePacked;
    uint8_t rare = 0;
    if (e.requested != e.bytes) rare |= kRequestedStored;
    if (e.blocked_ns != 0) rare |= kBlockedStored;
    if (rare) flags |= kRare;
    uint8_t* p = start;
    *p++ = flags;
    if (rare) *p++ = rare;
    p = put(p, zigzag(e.start_ns - prev_start_));
    p = put(p, e.duration_ns);
    if (shape != kNothing) p = put(p, e.bytes);
    if (shape == kAllMiss) p = put(p, e.readahead_bytes);
    if (shape == kFull) {
        p = put(p, e.hit_bytes);
        p = put(p, e.miss_bytes);
        p = put(p, e.readahead_bytes);
    }
    if (rare & kRequestedStored) p = put(p, e.requested);
    if (rare & kBlockedStored) p = put(p, e.blocked_ns);
    if (!(flags & kSamePid)) p = put(p, e.pid);
    if (tid_mode == kTidStored) p = put(p, e.tid);
    // Against the previous call's: a new op or flags on the same file
    // changes only the low 11 bits (one or two bytes, not four or five).
    if (!(flags & kSamePacked)) p = put(p, e.packed ^ prev_packed_);
    b.used += static_cast<size_t>(p - start);
    b.calls++;
    count_++;
    prev_start_ = e.start_ns;
    prev_pid_ = e.pid;
    prev_tid_ = e.tid;
    prev_packed_ = e.packed;
}

void CallLog::Block::Free::operator()(uint8_t* p) const { util::huge_free(p, kBlockBytes); }

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
    // Each field decoded into a local and stored once (see prev_start_).
    const uint8_t* p = log_->blocks_[block_].data.get() + pos_;
    const uint8_t* const start = p;
    const uint8_t flags = *p++;
    const uint8_t rare = flags & kRare ? *p++ : 0;
    uint64_t v = 0;
    p = get(p, v);
    const uint64_t start_ns = prev_start_ + unzigzag(v);
    uint64_t duration = 0, bytes = 0;
    p = get(p, duration);
    uint32_t hit = 0, miss = 0, readahead = 0;
    const auto shape = static_cast<Shape>((flags >> kShapeShift) & 7);
    if (shape != kNothing) p = get(p, bytes);
    if (shape == kAllHit) {
        hit = static_cast<uint32_t>(bytes);
    } else if (shape == kAllMiss) {
        miss = static_cast<uint32_t>(bytes);
        p = get(p, v);
        readahead = static_cast<uint32_t>(v);
    } else if (shape == kFull) {
        p = get(p, v);
        hit = static_cast<uint32_t>(v);
        p = get(p, v);
        miss = static_cast<uint32_t>(v);
        p = get(p, v);
        readahead = static_cast<uint32_t>(v);
    }
    uint64_t requested = bytes, blocked = 0;
    if (rare & kRequestedStored) p = get(p, requested);
    if (rare & kBlockedStored) p = get(p, blocked);
    uint32_t pid = prev_pid_;
    if (!(flags & kSamePid)) {
        p = get(p, v);
        pid = static_cast<uint32_t>(v);
    }
    const auto tid_mode = (flags >> kTidShift) & 3;
    uint32_t tid = tid_mode == kTidIsPid ? pid : prev_tid_;
    if (tid_mode == kTidStored) {
        p = get(p, v);
        tid = static_cast<uint32_t>(v);
    }
    uint32_t packed = prev_packed_;
    if (!(flags & kSamePacked)) {
        p = get(p, v);
        packed ^= static_cast<uint32_t>(v);
    }
    e.start_ns = start_ns;
    e.duration_ns = duration;
    e.bytes = bytes;
    e.requested = requested;
    e.blocked_ns = blocked;
    e.hit_bytes = hit;
    e.miss_bytes = miss;
    e.readahead_bytes = readahead;
    e.pid = pid;
    e.tid = tid;
    e.packed = packed;
    prev_start_ = start_ns;
    prev_pid_ = pid;
    prev_tid_ = tid;
    prev_packed_ = packed;
    pos_ += static_cast<size_t>(p - start);
    left_--;
    return true;
}

}  // namespace iolens::model
