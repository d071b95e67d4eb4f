#pragma once
// The calls of the DL event log (dl_log.h), stored compactly.
//
// Why: epochs and ranks are only known once the capture is over, so every
// call must be kept until then. As 64-byte CallEvents, 10 million calls took
// 640 MB (plus vector doubling). Most fields are small or repeat the previous
// call's (same process and thread, same op and file, bytes == requested), and
// a read's page-cache split is mostly "all of it was cached" or "none of it
// was", so each call is stored as a flags byte (two when it was short or
// blocked) plus LEB128 varints of what differs, byte counts that are whole
// pages in pages: a cached read loop takes 6 bytes a call, a 200,000-file
// DataLoader job 10 (they took 16 and 15 with one flag a field, then 7 and
// 11 with bytes counted in bytes, docs/benchmarks-report.md). Storage grows in fixed 2 MiB
// blocks, never by reallocating (no doubling peak). Decoding is exact: a Cursor gives back the very
// CallEvents that were appended, in order; finish() walks the log as often as
// it needs (dl_attribution.cpp).
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "model/call_event.h"

namespace iolens::model {

class CallLog {
public:
    void push_back(const CallEvent& e);
    uint64_t size() const { return count_; }
    bool empty() const { return count_ == 0; }
    size_t bytes() const;  // storage held (for tests and measurements)

    // Sequential decoder over the calls, in append order.
    class Cursor {
    public:
        explicit Cursor(const CallLog& log) : log_(&log) {}
        // The next call into e; false at the end.
        bool next(CallEvent& e);

    private:
        const CallLog* log_;
        size_t block_ = 0;
        size_t pos_ = 0;
        uint64_t left_ = 0;
        bool started_ = false;
        // The previous call's fields that the next one is coded against
        // (not a whole CallEvent: copying the one just written field by
        // field back out as 16-byte moves stalled on store forwarding, ~30%
        // of the decoding's time).
        uint64_t prev_start_ = 0;
        uint32_t prev_pid_ = 0, prev_tid_ = 0, prev_packed_ = 0;
    };

    // 2 MiB blocks, aligned and advised as transparent huge pages where the
    // kernel offers them (madvise mode): one page fault per block instead of
    // 512 (on a VM a fault is dear: 10 M calls were ~36,000 of them).
    static constexpr size_t kBlockBytes = 2u << 20;
    // Largest encoding of one call: 2 flag bytes + at most 11 varints of at
    // most 10 bytes (82 in fact: 6 of them hold 32-bit fields, 5 bytes each).
    static constexpr size_t kMaxRecordBytes = 2 + 10 * 10;

private:
    struct Block {
        struct Free {
            void operator()(uint8_t* p) const;
        };
        std::unique_ptr<uint8_t[], Free> data;
        size_t used = 0;
        uint64_t calls = 0;
    };
    std::vector<Block> blocks_;
    uint64_t count_ = 0;
    // The last call appended's fields that the next one is coded against.
    uint64_t prev_start_ = 0;
    uint32_t prev_pid_ = 0, prev_tid_ = 0, prev_packed_ = 0;
};

}  // namespace iolens::model
