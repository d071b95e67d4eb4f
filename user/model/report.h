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
#include "model/block_stats.h"
#include "model/histogram.h"
#include "model/page_cache.h"

namespace iolens::model {

inline constexpr int kOpCount = IOLENS_OP_COUNT;
// "read", "write", "open", "close", "stat", "seek", "mmap", "readdir", "sync".
const char* op_name(int op);

struct OpStats {
    uint64_t calls = 0;
    uint64_t errors = 0;           // calls that returned a negative errno
    uint64_t bytes = 0;            // bytes returned (read/write/readdir), mapped (mmap)
    uint64_t requested_bytes = 0;  // bytes asked for
    uint64_t time_ns = 0;          // total time inside the calls
    uint64_t blocked_ns = 0;       // of it, off CPU in uninterruptible sleep (blocking probe)
    Histogram latency_ns;          // one sample per call
    Histogram size_bytes;          // one sample per successful call that moves bytes
    void merge(const OpStats& o);
};
using OpTable = std::array<OpStats, kOpCount>;

struct ProbeStatus {
    std::string name;    // probe family / program, e.g. "syscalls"
    std::string hook;    // e.g. "tp_btf/sys_enter"
    bool attached = false;
    std::string reason;  // why not attached, or what was chosen and why
};

// What tracing cost, measured by the recorder itself. Absent (nullopt) in a
// recording made before iolens measured it.
struct ProgramCost {
    std::string family;    // probe family
    uint64_t run_ns = 0;   // kernel BPF stats: time spent in its programs...
    uint64_t runs = 0;     // ...over this many runs (every task, tracked or not)
};
struct CostInfo {
    uint64_t attach_ns = 0;  // `iolens record` start until the probes were live
    // Kernel BPF run-time statistics (BPF_ENABLE_STATS), per family; empty
    // with bpf_stats_unavailable saying why when the kernel could not keep them.
    // Estimates: the statistics are on only in sampled windows (they cost a
    // lot while on), covering bpf_sampled_share of the capture, and the
    // figures are scaled to the whole of it (1: measured throughout).
    std::vector<ProgramCost> bpf;
    double bpf_sampled_share = 1.0;
    std::string bpf_stats_unavailable;
    uint64_t recorder_cpu_ns = 0;         // the recorder's own user + system CPU time
    uint64_t recorder_max_rss_bytes = 0;  // its peak resident memory
    // CPU time of the traced job (the command and the descendants it waited
    // for; with -p the target's own and its reaped children's CPU during the
    // capture). nullopt with job_cpu_unavailable saying why.
    std::optional<uint64_t> job_cpu_ns;
    std::string job_cpu_unavailable;

    uint64_t bpf_run_ns() const;
    uint64_t bpf_runs() const;
};

struct CaptureInfo {
    std::vector<std::string> command;  // launched command, empty with -p
    std::vector<uint32_t> pids;        // the target pids given or launched
    uint64_t start_unix_ns = 0;
    uint64_t start_mono_ns = 0;        // CLOCK_MONOTONIC at start (event clock)
    uint64_t duration_ns = 0;
    uint64_t events = 0;               // records received from the kernel
    uint64_t lost_events = 0;          // everything lost anywhere (sum of lost_detail)
    std::map<std::string, uint64_t> lost_detail;  // reason -> count
    std::vector<ProbeStatus> probes;
    std::string hostname;
    std::string kernel_release;
    std::string iolens_version;
    std::optional<int> exit_status;    // of the launched command
    std::map<std::string, uint64_t> kernel_counters;  // the BPF side's counters at the end
    std::string stop_reason;           // why recording ended (signal, duration, ...)
    // Set when the recording did not end cleanly (recorder killed, file
    // truncated or corrupt): what we know and why the report is partial.
    bool partial = false;
    std::string partial_reason;
    // Kernel dev_t -> device name ("vda", "nvme0n1p1") for the disks and
    // file systems seen, so the report names them without the traced machine.
    std::map<uint32_t, std::string> devices;
    std::optional<CostInfo> cost;  // what iolens itself cost (nullopt: not measured)
};

// Probe family names as CaptureInfo::probes lists them, for the figures
// that exist only when that family was attached.
inline constexpr std::string_view kProbePageCache = "pagecache";
inline constexpr std::string_view kProbeBlocking = "blocking";
inline constexpr std::string_view kProbeBlock = "block";

// True when a probe family of that name was attached: its figures are
// measured. Otherwise they are unknown (shown as null / "n/a"), never 0.
bool probe_live(const CaptureInfo& capture, std::string_view name);
// One line saying why a family's figures are missing: its not-attached reason,
// or that this capture did not include it.
std::string probe_missing_reason(const CaptureInfo& capture, std::string_view name);
// The recorded name of a device, or "major:minor".
std::string device_name(const CaptureInfo& capture, uint32_t dev);

struct ProcessInfo {
    uint32_t pid = 0;
    uint32_t ppid = 0;
    std::string comm;
    std::vector<std::string> cmdline;
    uint64_t start_ns = 0;  // monotonic; 0 if it predates the capture
    uint64_t end_ns = 0;    // monotonic; 0 if still running at the end
    std::optional<int> exit_code;
};

struct ProcessStats {
    ProcessInfo info;
    OpTable ops;
    PageCacheStats page_cache;
    ProcessBlock block;  // block requests it submitted
};

struct FileStats {
    std::string path;  // absolute; "<dev 8:1 ino 1234>" when the open was not seen;
                       // starts with ".../" when the kernel path walk stopped early
    uint32_t dev = 0;  // kernel dev_t (major << 20 | minor)
    uint64_t ino = 0;
    uint64_t size = 0;
    OpTable ops;
    uint64_t sequential = 0;  // reads/writes whose offset continued the previous access
    uint64_t random = 0;      // reads/writes at any other offset
    PageCacheStats page_cache;
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
    std::optional<int64_t> local_rank;
    std::optional<int64_t> world_size;
    std::string rank_source;        // the variable it came from ("RANK", ...), or "default"
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
    // io_time_ns / wall_ns and critical_io_ns / wall_ns; empty when wall_ns is 0.
    std::optional<double> io_time_share() const;
    std::optional<double> critical_io_share() const;
};

// One epoch of one rank.
struct EpochRankStats {
    int64_t rank = 0;
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
struct EpochStats {
    uint32_t index = 0;          // from 1
    std::string source;          // "marker" or "inferred"
    uint64_t start_ns = 0;       // monotonic
    uint64_t end_ns = 0;
    std::optional<int64_t> marker_number;  // N of the "epoch/N" marker (source "marker")
    uint64_t steps = 0;          // distinct "step/N" markers within the epoch
    OpTable ops;                 // every tracked process
    PageCacheStats page_cache;   // every tracked process
    ProcessBlock block;          // requests tracked processes submitted
    std::vector<EpochRankStats> ranks;  // by rank
    uint64_t duration_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
    // Sums over ranks (for the epoch table): wall, I/O and critical time.
    uint64_t rank_wall_ns() const;
    uint64_t rank_io_time_ns() const;
    uint64_t rank_critical_io_ns() const;
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
    Spread read_bytes;        // RankStats::ops[read].bytes
    Spread io_time_ns;        // RankStats::io_time_ns
    int64_t straggler_rank = 0;         // the rank with the most io_time_ns (lowest on ties)
    uint64_t straggler_io_time_ns = 0;
};

// One bottleneck the rule engine found (user/analysis/).
struct Finding {
    std::string id;              // small_reads, random_access, io_stall, ...
    std::string severity;        // "high", "warn" or "info"
    std::string title;           // one line
    nlohmann::json evidence;     // the numbers that triggered it
    std::string recommendation;  // the knob to turn
};

struct Report {
    CaptureInfo capture;
    OpTable totals;
    std::vector<ProcessStats> processes;  // by pid, then start (a reused pid appears twice)
    std::vector<FileStats> files;         // by bytes read+written, descending; capped
    uint64_t files_total = 0;             // files seen, including those left out
    uint64_t files_omitted = 0;           // files_total - files.size()
    PageCacheStats page_cache;            // every tracked process together
    std::vector<BlockDevice> block_devices;  // by total bytes, descending
    ProcessBlock block_unattributed;      // requests no tracked process submitted (pid 0)
    std::vector<RankStats> ranks;         // by rank
    std::vector<EpochStats> epochs;       // by index
    std::optional<RankImbalance> rank_imbalance;  // with 2 ranks or more
    std::vector<Finding> findings;        // most severe first
};

// "major:minor" of a kernel dev_t.
uint32_t dev_major(uint32_t dev);
uint32_t dev_minor(uint32_t dev);

// Derived figures the renderers show, defined once here so that the terminal
// and the JSON views cannot disagree on them.
uint64_t rw_bytes(const OpTable& ops);       // read + write bytes
uint64_t total_time_ns(const OpTable& ops);  // time in all traced calls
// The n processes that moved the most read + write bytes (ties: lower pid first).
std::vector<const ProcessStats*> top_processes(const Report& report, size_t n);
// The n processes / listed files that brought the most bytes into the page
// cache (PageCacheStats::brought_in); those that brought none are left out.
std::vector<const ProcessStats*> top_processes_by_cache_in(const Report& report, size_t n);
std::vector<const FileStats*> top_files_by_cache_in(const Report& report, size_t n);
// The n processes that submitted the most block bytes; those with none left out.
std::vector<const ProcessStats*> top_processes_by_block(const Report& report, size_t n);

}  // namespace iolens::model
