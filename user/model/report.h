#pragma once
// The report model: the one set of aggregates that every renderer (terminal,
// JSON) presents. Renderers never compute statistics of their own; anything
// they show lives here. Built from recorded events by ReportBuilder.
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "iolens/abi.h"
#include "model/async_depth.h"
#include "model/block_stats.h"
#include "model/call_sites.h"
#include "model/finding.h"
#include "model/histogram.h"
#include "model/page_cache.h"
#include "recording/capture.h"

namespace iolens::model {

// The capture description is the recording's (recording/capture.h); the
// report carries it as it was read.
using recording::CaptureInfo;
using recording::ProcessInfo;

inline constexpr int kOpCount = IOLENS_OP_COUNT;
// "read", "write", "open", "close", "stat", "seek", "mmap", "readdir", "sync".
const char* op_name(int op);

struct OpStats {
    uint64_t calls = 0;
    uint64_t errors = 0;           // calls that returned a negative errno
    uint64_t bytes = 0;            // bytes returned (read/write/readdir); 0 for mmap
    uint64_t requested_bytes = 0;  // bytes asked for
    uint64_t time_ns = 0;          // total time inside the calls
    uint64_t blocked_ns = 0;       // of it, off CPU in uninterruptible sleep (blocking probe)
    Histogram latency_ns;          // one sample per call
    Histogram size_bytes;          // one sample per successful call that moves bytes
    void merge(const OpStats& o);
};
using OpTable = std::array<OpStats, kOpCount>;

// --- data paths ---------------------------------------------------------------
// How a call's data reached its file (enum iolens_path): plain syscalls, copy
// calls (sendfile, copy_file_range, splice), Linux AIO, io_uring. Every path
// is counted in the same class tables (OpTable); PathTable says how much of
// each class took each path.
inline constexpr int kPathCount = IOLENS_PATH_COUNT;
// "syscall", "copy", "aio", "io_uring": the JSON keys and the terminal's names.
const char* path_name(int path);

// The calls of one class that took one path: their share of its OpStats.
struct PathOps {
    uint64_t calls = 0;
    uint64_t errors = 0;
    uint64_t bytes = 0;
    uint64_t requested_bytes = 0;
    uint64_t time_ns = 0;
    uint64_t offloaded = 0;  // io_uring: requests that went to an io-wq worker thread
    void merge(const PathOps& o);
    void subtract(const PathOps& o);
};
struct PathTable {
    // by[path][class]; the rows of a class add up to its OpStats.
    std::array<std::array<PathOps, kOpCount>, kPathCount> by{};
    // True when some call took a path other than plain syscalls.
    bool any_other_path() const;
    void merge(const PathTable& o);
    // Sets the syscall row to what the other paths leave of ops.
    void complete(const OpTable& ops);
};

struct ProcessStats {
    ProcessInfo info;
    OpTable ops;
    PathTable paths;  // of ops
    PageCacheStats page_cache;
    ProcessBlock block;     // block requests it submitted
    AsyncDepthStats async;  // how many of its AIO and io_uring requests were in flight (requests 0: none)
    // Of ops' open and close calls, those on files this process wrote: the
    // write they flush (a close after writing flushes on NFS and with ext4's
    // auto_da_alloc; an O_TRUNC open drops the old blocks), not metadata.
    // Filled with the ranks (CallSplit::known).
    OpStats flush;
    std::string node;  // its host, in a report of many nodes' recordings (else empty)
};

struct FileStats {
    std::string path;  // absolute; "<dev 8:1 ino 1234>" when the open was not seen;
                       // starts with ".../" when the kernel path walk stopped early
    uint32_t dev = 0;  // kernel dev_t (major << 20 | minor)
    uint64_t ino = 0;
    uint64_t size = 0;
    OpTable ops;
    PathTable paths;          // of ops
    uint64_t sequential = 0;  // reads/writes whose offset continued the previous access
    uint64_t random = 0;      // reads/writes at any other offset
    PageCacheStats page_cache;
    AsyncDepthStats async;  // of the AIO and io_uring requests on it, by any process
    bool software = false;  // software_path(path): a module, library or system file (file_class.h)
};

// --- DL attribution (ranks, epochs, stalls, findings) -------------------------

// I/O time of one thread: the union of its file syscalls (and file faults).
struct ThreadIo {
    uint32_t pid = 0;
    uint32_t tid = 0;
    uint64_t io_ns = 0;
};

// Everything the report has per process, summed over the processes of one
// rank (a process without a rank of its own belongs to its parent's), plus
// how much the rank waited for I/O.
struct RankStats {
    int64_t rank = 0;
    std::string node;  // its host, in a report of many nodes' recordings (else empty)
    std::optional<int64_t> local_rank;
    std::optional<int64_t> world_size;
    std::string rank_source;  // the variable it came from ("RANK", ...), or "default"
    std::vector<uint32_t> pids;
    OpTable ops;
    PageCacheStats page_cache;
    ProcessBlock block;
    uint64_t wall_ns = 0;           // first start to last end of its processes within the capture
    uint64_t io_time_ns = 0;        // time any thread or process of the rank was in file I/O
    uint64_t critical_io_ns = 0;    // time the main thread was in file I/O, or off CPU while
                                    // I/O of the rank was in flight: training waited for data
    std::vector<ThreadIo> threads;  // per-thread I/O time, most first
    // The rank's root processes (those whose parent is not of the rank): their
    // main threads (tid == pid) are the "main thread" of critical_io_ns.
    std::vector<uint32_t> root_pids;
    // Start-up: from the rank's start to its first read or write of a data
    // file (CallSplit), and the critical I/O within it (imports, libraries).
    uint64_t startup_ns = 0;
    uint64_t startup_critical_io_ns = 0;
    uint64_t data_reads = 0;  // reads of data files (not software_path) by the rank
    // io_time_ns / wall_ns and critical_io_ns / wall_ns; empty when wall_ns is 0.
    std::optional<double> io_time_share() const;
    std::optional<double> critical_io_share() const;
};

// One epoch of one rank.
struct EpochRankStats {
    int64_t rank = 0;
    // The rank's own window of the epoch, which its events are charged by
    // (with several ranks each has its own boundaries: dl_attribution.cpp).
    uint64_t start_ns = 0;
    uint64_t end_ns = 0;
    OpTable ops;
    PageCacheStats page_cache;
    ProcessBlock block;
    uint64_t wall_ns = 0;
    uint64_t io_time_ns = 0;
    uint64_t critical_io_ns = 0;
    std::optional<double> io_time_share() const;      // of wall_ns
    std::optional<double> critical_io_share() const;  // of wall_ns
};

// One training epoch, from epoch markers or inferred from the dataset re-read
// cycle (docs/report-schema.md, "Epoch"). Calls are charged by start_ns,
// page-cache events by their time, block requests by their issue time.
// Where an epoch's boundaries came from.
enum class EpochSource { Marker, Inferred };
// "marker", "inferred": the JSON values and the epoch table's column.
const char* epoch_source_name(EpochSource s);

struct EpochStats {
    uint32_t index = 0;  // from 1
    EpochSource source = EpochSource::Marker;
    uint64_t start_ns = 0;  // monotonic
    uint64_t end_ns = 0;
    std::optional<int64_t> marker_number;  // N of the "epoch/N" marker (source "marker")
    uint64_t steps = 0;                    // distinct "step/N" markers within the epoch
    OpTable ops;                           // every tracked process
    PageCacheStats page_cache;             // every tracked process
    ProcessBlock block;                    // requests tracked processes submitted
    // By rank; empty when epochs x ranks passes kMaxEpochRankCells (the
    // report says so in Report::limits): the sums below stay exact.
    std::vector<EpochRankStats> ranks;
    // Sums over ranks (for the epoch table): wall, I/O and critical time.
    struct RankSums {
        uint64_t wall_ns = 0;
        uint64_t io_time_ns = 0;
        uint64_t critical_io_ns = 0;
    } rank_sums;
    uint64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
    uint64_t rank_wall_ns() const { return rank_sums.wall_ns; }
    uint64_t rank_io_time_ns() const { return rank_sums.io_time_ns; }
    uint64_t rank_critical_io_ns() const { return rank_sums.critical_io_ns; }
    // rank_io_time_ns / rank_wall_ns and rank_critical_io_ns / rank_wall_ns:
    // the ranks' shares weighted by their time in the epoch.
    std::optional<double> io_time_share() const;
    std::optional<double> critical_io_share() const;
};

// How unevenly the ranks did their I/O (set when there are 2 ranks or more).
struct Spread {
    uint64_t min = 0;
    uint64_t max = 0;
    double mean = 0;
    std::optional<double> max_over_mean;  // empty when mean is 0
};
struct RankImbalance {
    Spread read_bytes;           // RankStats::ops[read].bytes
    Spread io_time_ns;           // RankStats::io_time_ns
    int64_t straggler_rank = 0;  // the rank with the most io_time_ns (lowest on ties)
    uint64_t straggler_io_time_ns = 0;
};

// What a recording may ask of the report, at most: a crafted or runaway
// recording must not take the machine down (docs/report-schema.md, "limits").
inline constexpr size_t kMaxEpochs = 4096;           // epochs reported (the first ones)
inline constexpr size_t kMaxEpochRankCells = 65536;  // epochs x ranks with per-rank epoch tables

// How the calls split between the job's start-up, its software and its data
// (model/file_class.h; docs/report-schema.md, "split"). Filled with the ranks
// (BuilderOptions::dl_attribution); known is false without them.
struct CallSplit {
    bool known = false;
    // The first read or write of a regular data file by any tracked process:
    // the end of start-up (monotonic). 0: there was none.
    uint64_t startup_end_ns = 0;
    uint64_t startup_ns = 0;  // capture start to startup_end_ns (the whole capture without one)
    OpTable startup;          // calls started before startup_end_ns (all calls without one)
    // After start-up, calls on data files and calls without a file (a
    // failed stat, a readdir), without the flush calls.
    OpTable data;
    OpStats flush;                     // open and close calls on files their process wrote
    uint64_t data_files = 0;           // distinct data files with calls
    uint64_t software_files = 0;       // distinct software files with calls
    uint64_t startup_time_ns() const;  // time in the start-up calls, summed
};

// A time series per rank for the HTML report's timeline
// (BuilderOptions::timeline_bins): the capture cut into equal bins, and each
// rank's figures measured within each bin exactly as RankStats measures them
// over the whole capture, so that a rank's bins add up to its totals.
struct RankTimeline {
    int64_t rank = 0;
    std::vector<uint64_t> read_bytes;   // RankStats::ops[read].bytes, by the bin of each call's start
    std::vector<uint64_t> io_ns;        // RankStats::io_time_ns within each bin (at most bin_ns)
    std::vector<uint64_t> critical_ns;  // RankStats::critical_io_ns within each bin (at most io_ns)
};
struct Timeline {
    uint64_t start_ns = 0;  // monotonic: the capture's start; bin k is [start + k*bin, start + (k+1)*bin)
    uint64_t bin_ns = 0;    // the first bin also takes what came before start, the last what came after
    size_t bins = 0;
    std::vector<RankTimeline> ranks;  // as Report::ranks
};

// One node of a report merged from many recordings (model/job_merge.h): what
// its recording said and its share of the job.
struct NodeSummary {
    std::string host;
    std::string recording;  // the file it came from
    std::string job_id;
    std::string kernel_release;
    uint64_t start_unix_ns = 0;  // when its tracing went live (realtime)
    uint64_t duration_ns = 0;
    int64_t clock_offset_ns = 0;  // added to its monotonic times to put them on the first node's
    uint64_t anchor_uncertainty_ns = 0;
    uint64_t events = 0;
    uint64_t lost_events = 0;
    bool partial = false;
    std::vector<int64_t> ranks;  // the ranks it ran
    OpTable totals;
    PageCacheStats page_cache;
    uint64_t io_time_ns = 0;         // its ranks' RankStats::io_time_ns, summed
    uint64_t critical_io_ns = 0;     // its ranks' critical_io_ns, summed
    uint64_t device_read_bytes = 0;  // its block devices' read bytes
};

struct Report {
    CaptureInfo capture;
    // A report of many nodes' recordings: one entry per node (empty for one
    // recording). capture is then the job's: hosts joined, the union of the
    // time ranges, events and losses summed.
    std::vector<NodeSummary> nodes;
    OpTable totals;
    PathTable paths;                              // of totals
    std::vector<ProcessStats> processes;          // by pid, then start (a reused pid appears twice)
    std::vector<FileStats> files;                 // by bytes read+written, descending; capped
    uint64_t files_total = 0;                     // files seen, including those left out
    uint64_t files_omitted = 0;                   // files_total - files.size()
    PageCacheStats page_cache;                    // every tracked process together
    std::vector<BlockDevice> block_devices;       // by total bytes, descending
    ProcessBlock block_unattributed;              // requests no tracked process submitted (pid 0)
    std::vector<RankStats> ranks;                 // by rank
    std::vector<EpochStats> epochs;               // by index
    std::optional<RankImbalance> rank_imbalance;  // with 2 ranks or more
    CallSplit split;                              // start-up, software, data
    std::vector<Finding> findings;                // most severe first
    // Limits the report hit, one sentence each (kMaxEpochs, ...): what was
    // left out and why. Empty for any ordinary recording.
    std::vector<std::string> limits;
    // Why no epochs were inferred when a re-read cycle was seen but the
    // evidence was too weak to call it one (empty otherwise).
    std::string epochs_note;
    // Per-rank time series, when asked for (BuilderOptions::timeline_bins)
    // and there are ranks; only the HTML report shows it.
    std::optional<Timeline> timeline;
    // record --stacks: the calls by call site (model/call_sites.h); nullopt
    // for a recording made without stacks.
    std::optional<CallSites> call_sites;
};

// Derived figures the renderers show, defined once here so that the terminal
// and the JSON views cannot disagree on them.
uint64_t rw_bytes(const OpTable& ops);       // read + write bytes
uint64_t total_time_ns(const OpTable& ops);  // time in all traced calls
// sequential / (sequential + random) of accesses (file reads and writes, or
// block requests); empty when there were none.
std::optional<double> sequential_share(uint64_t sequential, uint64_t random);
// Distinct step markers over all epochs.
uint64_t steps_marked(const Report& report);
// The n processes that moved the most read + write bytes (ties: lower pid first).
std::vector<const ProcessStats*> top_processes(const Report& report, size_t n);
// The n processes / listed files that brought the most bytes into the page
// cache (PageCacheStats::brought_in); those that brought none are left out.
std::vector<const ProcessStats*> top_processes_by_cache_in(const Report& report, size_t n);
std::vector<const FileStats*> top_files_by_cache_in(const Report& report, size_t n);
// The n processes that submitted the most block bytes; those with none left out.
std::vector<const ProcessStats*> top_processes_by_block(const Report& report, size_t n);

}  // namespace iolens::model
