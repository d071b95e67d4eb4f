#pragma once
// readahead_waste's evidence: of the pages the job read ahead, which it never
// read before they left the page cache (or before recording stopped). The
// kernel's referenced flag cannot say (reclaim clears it before the page
// leaves), so the judgement comes from the job's own reads: a read-ahead
// page is read if some read of the job covering it ended after the page was
// added and started before it was evicted. Per file, in pages.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace iolens::model {

// Reads of one file, adjacent reads of one stream merged: pages [lo, hi),
// from the first read's start to the last one's end.
struct ReadSpan {
    uint64_t lo = 0, hi = 0;
    uint64_t start_ns = 0, end_ns = 0;
};

// A run of read-ahead pages [lo, hi) added from added_ns, gone (evicted, or
// recording stopped) by gone_ns, of which ra_bytes were read ahead.
struct ReadaheadSpan {
    uint64_t lo = 0, hi = 0;
    uint64_t added_ns = 0, gone_ns = 0;
    uint64_t ra_bytes = 0;
    uint32_t pid = 0;
    bool resident = false;        // still cached at the end (RESIDENT)
    size_t log_index = SIZE_MAX;  // its event in DlLog::page_cache, if logged
};

// For each span, in order: the bytes of it the job never read (at most its
// ra_bytes). Sorts `reads` by start.
std::vector<uint64_t> judge_readahead(std::vector<ReadSpan>& reads, const std::vector<ReadaheadSpan>& spans);

// Merges a read of pages [lo, hi) into `run` when it continues it (starts in
// the run's last page or right after); else returns false and leaves `run`.
bool extend_read_span(ReadSpan& run, uint64_t lo, uint64_t hi, uint64_t start_ns, uint64_t end_ns);

}  // namespace iolens::model
