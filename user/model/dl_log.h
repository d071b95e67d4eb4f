#pragma once
// The compact event log behind ranks, epochs and stalls.
//
// Why a log: epoch boundaries may only be known at the end (inferred from the
// dataset re-read cycle, or snapped back to a worker respawn), and a process's
// rank may arrive after its first events (its ENV chunk is written once the
// capture side has read /proc). So the builder cannot charge an event to its
// epoch or rank when it sees it; it appends a compact summary here instead and
// ReportBuilder::finish() charges every event once all is known (dl_attribution.h).
//
// Memory: a CallEvent carries exactly what account() and the page-cache split
// need, so per-epoch tables equal the whole-capture ones (histograms
// included); the page-cache split is computed once, in record order, when the
// call is seen (it depends on the order). CallLog stores them in 6-10 bytes
// each rather than 64 (call_log.h).
// Block requests take a few bytes (BlockLog); page-cache, marker and
// off-CPU events are 24-40 bytes and rarer.
// BuilderOptions::dl_attribution = false turns the log off for huge captures.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "iolens/abi.h"
#include "model/call_event.h"
#include "model/call_log.h"
#include "model/page_cache.h"
#include "model/report.h"
#include "util/varint.h"

namespace iolens::model {

// A call's summary; cache is the read's page-cache split, when it has one.
CallEvent make_call_event(const iolens_syscall_rec& r, const std::optional<CacheRead>& cache,
                          uint32_t file_index);
// The one definition of how a call counts in an OpStats (used by the builder
// for its totals, processes and files, and for the per-epoch tables).
void account(OpStats& s, const CallEvent& e);
// The same call's share of its path's row (PathTable).
void account_path(PathOps& s, const CallEvent& e, bool offloaded = false);

struct PageCacheEvent {
    uint64_t ts_ns = 0;
    uint64_t bytes = 0;
    uint32_t pid = 0;  // the process charged; 0: none (counted only in the epoch total)
    uint8_t kind = 0;
    uint8_t flags = 0;
    uint16_t majors = 0;  // FAULT_IN: major faults in the run (at most 65,535)
    iolens_pagecache_rec as_record() const;
};

struct BlockEvent {
    uint64_t issue_ns = 0;
    uint32_t pid = 0;
    uint32_t bytes = 0;
    uint8_t op = 0;
    iolens_block_rec as_record() const;
};

// The block requests, in order, a few bytes each where a BlockEvent takes
// 24 (a 200,000-file job issues ~400,000: 9 MiB so, ~2 MiB here): a flags
// byte, then LEB128 varints of what differs from the previous request (its
// issue time, the pid, the op), the bytes in pages when they are whole pages.
class BlockLog {
public:
    void push_back(const BlockEvent& e);
    size_t size() const { return count_; }
    bool empty() const { return count_ == 0; }

    // Sequential decoder over the requests, in append order.
    class Cursor {
    public:
        explicit Cursor(const BlockLog& log) : log_(&log) {}
        // The next request into e; false at the end.
        bool next(BlockEvent& e);

    private:
        const BlockLog* log_;
        size_t chunk_ = 0, pos_ = 0;
        BlockEvent prev_;
    };

private:
    static constexpr size_t kChunkBytes = 64 * 1024;
    static constexpr size_t kMaxRecordBytes = 2 + 3 * util::kMaxVarintBytes;
    struct Chunk {
        std::unique_ptr<uint8_t[]> data;
        size_t used = 0;
    };
    std::vector<Chunk> chunks_;
    size_t count_ = 0;
    BlockEvent prev_;  // the last request appended
};

struct MarkerEvent {
    uint64_t ts_ns = 0;
    uint32_t pid = 0;
    uint32_t tid = 0;
    std::string text;  // after IOLENS_MARKER_PREFIX: "epoch/3", "step/120", "end"
};

struct OffCpuEvent {
    uint64_t start_ns = 0;
    uint64_t end_ns = 0;
    uint32_t pid = 0;
    uint32_t tid = 0;
};

class DlLog {
public:
    // A new file's index (the caller keeps it, with the file's identity and
    // path: ReportBuilder does in its per-file state, which it looks up
    // anyway), or CallEvent::kNoFile once there are that many files.
    uint32_t add_file();
    // The files indexed (a count: 16 bytes a file of (dev, ino) here were
    // never read).
    size_t files() const { return files_; }

    CallLog calls;  // compact: see call_log.h
    std::vector<PageCacheEvent> page_cache;
    BlockLog blocks;
    std::vector<MarkerEvent> markers;
    std::vector<OffCpuEvent> offcpu;
    uint64_t first_ts = UINT64_MAX;  // earliest / latest time seen in any event
    uint64_t last_ts = 0;
    void saw(uint64_t start, uint64_t end) {
        if (start < first_ts) first_ts = start;
        if (end > last_ts) last_ts = end;
    }

private:
    uint32_t files_ = 0;
};

}  // namespace iolens::model
