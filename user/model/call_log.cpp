#include "model/call_log.h"

#include "util/huge_pages.h"
#include "util/varint.h"

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
// bytes and (hit, miss, readahead): the common cases store only bytes. The
// first three again, with bytes a multiple of a page, stored in pages (a
// 128 KiB read's bytes take one byte, not three).
enum Shape : uint8_t {
    kNothing = 0,    // bytes 0, no page-cache fields
    kBytesOnly = 1,  // bytes stored, no page-cache fields
    kAllHit = 2,     // bytes stored; hit = bytes, miss = readahead = 0
    kAllMiss = 3,    // bytes stored; hit = 0, miss = bytes; readahead stored
    kFull = 4,       // bytes, hit, miss and readahead stored
    kInPages = 4,    // added to kBytesOnly, kAllHit, kAllMiss: bytes stored in pages
};
// requested is stored as its difference from bytes (a short read's is what
// it did not get), in pages when it is whole pages; blocked_ns as its
// difference from duration_ns when that is shorter (a read that waited on
// the device for most of its time).
enum RareFlags : uint8_t {
    kRequestedStored = 1u << 0,
    kBlockedStored = 1u << 1,
    kRequestedInPages = 1u << 2,
    kBlockedFromDuration = 1u << 3,
};
constexpr unsigned kPageShift = 12;
constexpr uint64_t kPageMask = (uint64_t{1} << kPageShift) - 1;

Shape shape_of(const CallEvent& e) {
    const bool no_cache = e.hit_bytes == 0 && e.miss_bytes == 0 && e.readahead_bytes == 0;
    const auto pages = [&](Shape sh) {
        return static_cast<Shape>(e.bytes != 0 && (e.bytes & kPageMask) == 0 ? sh + kInPages : sh);
    };
    if (no_cache) return e.bytes == 0 ? kNothing : pages(kBytesOnly);
    if (e.hit_bytes == e.bytes && e.miss_bytes == 0 && e.readahead_bytes == 0) return pages(kAllHit);
    if (e.hit_bytes == 0 && e.miss_bytes == e.bytes) return pages(kAllMiss);
    return kFull;
}

using util::get_varint;
using util::put_varint;
using util::unzigzag;
using util::varint_bytes;
using util::zigzag;

// A page-cache byte count (32 bits): in pages when it is whole pages, the
// low bit telling which.
uint64_t to_pages_or_bytes(uint32_t v) {
    return (v & kPageMask) == 0 ? uint64_t{v} >> kPageShift << 1 : uint64_t{v} << 1 | 1;
}
uint32_t from_pages_or_bytes(uint64_t x) {
    return static_cast<uint32_t>(x & 1 ? x >> 1 : x >> 1 << kPageShift);
}

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
    const uint64_t short_by = e.requested - e.bytes;  // mod 2^64: any requested
    if (short_by != 0) rare |= kRequestedStored | ((short_by & kPageMask) == 0 ? kRequestedInPages : 0);
    uint64_t blocked = e.blocked_ns;
    if (blocked != 0) {
        rare |= kBlockedStored;
        if (blocked <= e.duration_ns && varint_bytes(e.duration_ns - blocked) < varint_bytes(blocked)) {
            rare |= kBlockedFromDuration;
            blocked = e.duration_ns - blocked;
        }
    }
    if (rare) flags |= kRare;
    uint8_t* p = start;
    *p++ = flags;
    if (rare) *p++ = rare;
    p = put_varint(p, zigzag(e.start_ns - prev_start_));
    p = put_varint(p, e.duration_ns);
    if (shape > kFull) {
        p = put_varint(p, e.bytes >> kPageShift);
    } else if (shape != kNothing) {
        p = put_varint(p, e.bytes);
    }
    if (shape == kAllMiss || shape == kAllMiss + kInPages)
        p = put_varint(p, to_pages_or_bytes(e.readahead_bytes));
    if (shape == kFull) {
        p = put_varint(p, to_pages_or_bytes(e.hit_bytes));
        p = put_varint(p, to_pages_or_bytes(e.miss_bytes));
        p = put_varint(p, to_pages_or_bytes(e.readahead_bytes));
    }
    if (rare & kRequestedStored)
        p = put_varint(p, rare & kRequestedInPages ? short_by >> kPageShift : short_by);
    if (rare & kBlockedStored) p = put_varint(p, blocked);
    if (!(flags & kSamePid)) p = put_varint(p, e.pid);
    if (tid_mode == kTidStored) p = put_varint(p, e.tid);
    // Against the previous call's: a new op or flags on the same file
    // changes only the low 11 bits (one or two bytes, not four or five).
    if (!(flags & kSamePacked)) p = put_varint(p, e.packed ^ prev_packed_);
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
    p = get_varint(p, v);
    const uint64_t start_ns = prev_start_ + unzigzag(v);
    uint64_t duration = 0, bytes = 0;
    p = get_varint(p, duration);
    uint32_t hit = 0, miss = 0, readahead = 0;
    auto shape = static_cast<Shape>((flags >> kShapeShift) & 7);
    if (shape > kFull) {
        p = get_varint(p, bytes);
        bytes <<= kPageShift;
        shape = static_cast<Shape>(shape - kInPages);
    } else if (shape != kNothing) {
        p = get_varint(p, bytes);
    }
    if (shape == kAllHit) {
        hit = static_cast<uint32_t>(bytes);
    } else if (shape == kAllMiss) {
        miss = static_cast<uint32_t>(bytes);
        p = get_varint(p, v);
        readahead = from_pages_or_bytes(v);
    } else if (shape == kFull) {
        p = get_varint(p, v);
        hit = from_pages_or_bytes(v);
        p = get_varint(p, v);
        miss = from_pages_or_bytes(v);
        p = get_varint(p, v);
        readahead = from_pages_or_bytes(v);
    }
    uint64_t requested = bytes, blocked = 0;
    if (rare & kRequestedStored) {
        p = get_varint(p, v);
        requested += rare & kRequestedInPages ? v << kPageShift : v;
    }
    if (rare & kBlockedStored) {
        p = get_varint(p, blocked);
        if (rare & kBlockedFromDuration) blocked = duration - blocked;
    }
    uint32_t pid = prev_pid_;
    if (!(flags & kSamePid)) {
        p = get_varint(p, v);
        pid = static_cast<uint32_t>(v);
    }
    const auto tid_mode = (flags >> kTidShift) & 3;
    uint32_t tid = tid_mode == kTidIsPid ? pid : prev_tid_;
    if (tid_mode == kTidStored) {
        p = get_varint(p, v);
        tid = static_cast<uint32_t>(v);
    }
    uint32_t packed = prev_packed_;
    if (!(flags & kSamePacked)) {
        p = get_varint(p, v);
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
