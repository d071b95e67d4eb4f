#pragma once
// The findings rule engine: reads a finished Report and says, in a few
// findings, what is slowing the training job's I/O, with the numbers that show
// it (evidence) and the knob to turn (recommendation). Rules only read the
// model; each one stays silent when the figures it needs were not measured
// (probe not attached, no ranks, no epochs). docs/findings.md documents every
// rule and every threshold below; keep the two in step.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/report.h"

namespace iolens::analysis {

inline constexpr uint64_t kKiB = 1024;
inline constexpr uint64_t kMiB = 1024 * kKiB;
inline constexpr uint64_t kSecond = 1'000'000'000;

// Every number a rule compares against, in one place. "Share" values are
// fractions (0.3 = 30%). "Time share of the capture" is time summed over all
// traced threads divided by the capture's duration, so it can exceed 1 when
// many DataLoader workers read at once. Why each default: docs/findings.md.
struct Thresholds {
    // --- shared: when is I/O time worth a finding at all -------------------
    // Time summed over threads must be at least this share of the capture...
    double min_time_share = 0.05;
    // ...or, when the capture's duration is unknown (0), at least this long.
    uint64_t min_time_ns = 1 * kSecond;

    // --- small_reads ---------------------------------------------------------
    uint64_t small_read_bytes = 64 * kKiB;    // median (p50) read size below this
    uint64_t small_reads_min_calls = 10'000;  // and at least this many reads

    // --- random_access -------------------------------------------------------
    uint64_t random_min_file_accesses = 16;  // a file counts if it had this many reads/writes
    uint64_t random_min_accesses = 1'000;    // sequential + random over counted files
    double random_share = 0.5;               // random / (sequential + random) at or above
    // Mean read size at or above which random access is cheap enough to be
    // only "info" (large random reads already run near device bandwidth).
    uint64_t random_large_read_bytes = 1 * kMiB;

    // --- io_stall (per rank, and per epoch of each rank) ---------------------
    uint64_t stall_min_wall_ns = kSecond / 5;  // rank / epoch wall time to judge
    uint64_t stall_min_ns = kSecond / 20;      // critical I/O of an epoch to count at all
    double stall_warn_share = 0.10;            // critical_io_ns / wall_ns at or above
    double stall_high_share = 0.30;

    // --- rank_imbalance ------------------------------------------------------
    double imbalance_ratio = 1.5;                     // straggler / mean of the other ranks at or above: warn
    double imbalance_high_ratio = 2.0;                // ... at or above: high
    double imbalance_min_io_share = 0.05;             // straggler's io_time_ns / wall_ns at least
    uint64_t imbalance_min_excess_ns = kSecond / 10;  // straggler's io_time_ns over its peers' mean, at least
    uint64_t imbalance_min_bytes = 64 * kMiB;         // mean read bytes per rank, for the bytes metric
    double imbalance_cache_gap = 0.25;                // peers' hit ratio minus the straggler's: colder_cache
    uint64_t imbalance_device_min_bytes = 4 * kMiB;   // device bytes per rank to compare device speed

    // --- dataset_exceeds_cache (epochs with index >= cache_min_epoch_index) --
    uint32_t cache_min_epoch_index = 2;
    uint64_t cache_min_epoch_read_bytes = 32 * kMiB;  // epochs reading less are not judged
    double cache_max_hit_ratio = 0.5;                 // epoch hit ratio at or below
    double cache_min_miss_share = 0.7;                // and miss_bytes / read bytes at or above
    double cache_high_hit_ratio = 0.1;  // mean hit ratio of the missing epochs at or below: high

    // --- metadata_heavy ------------------------------------------------------
    uint64_t metadata_min_calls = 1'000;     // open + close + stat + readdir calls
    double metadata_time_share = 0.30;       // of metadata + read + write time: warn
    double metadata_high_time_share = 0.60;  // ... high
    double metadata_opens_per_mib = 8.0;     // opens per MiB read at or above: info

    // --- many_small_files ----------------------------------------------------
    uint64_t small_files_min_files = 1'000;     // files read at least
    uint64_t small_file_bytes = 1 * kMiB;       // median size of a read file below
    uint64_t small_files_epoch_opens = 10'000;  // or: opens in one epoch at or above,
                                                // averaging less than small_file_bytes read each

    // --- readahead_waste (page-cache probe) ----------------------------------
    uint64_t readahead_min_bytes = 64 * kMiB;  // brought into the cache at least
    double readahead_waste_share = 0.25;  // read ahead, never read (evicted or at the end) / brought in: warn
    double readahead_waste_high_share = 0.50;  // ... high

    // --- mmap_random (page-cache probe) --------------------------------------
    uint64_t mmap_min_fault_bytes = 16 * kMiB;  // brought in by faults on a file's mappings at least
    uint64_t mmap_min_major_faults = 32;        // and at least this many major faults on it
    double mmap_amplification = 8.0;            // fault-in bytes per faulted page's bytes at or above

    // --- startup_io (info) ---------------------------------------------------
    uint64_t startup_min_ns = kSecond / 10;  // critical I/O before the first data read at least

    // --- checkpoint_stall (main process of each rank, or of each target) -----
    uint64_t checkpoint_min_sync_calls = 1;     // fsync/fdatasync/sync_file_range
    uint64_t checkpoint_min_ns = kSecond / 20;  // sync + write time at least
    double checkpoint_share = 0.05;             // (sync + write time) / wall: warn
    double checkpoint_high_share = 0.15;        // ... high

    // --- shallow_async (per process: AIO and io_uring requests) -------------
    uint64_t shallow_async_min_requests = 1'000;  // async read + write requests at least
    double shallow_async_max_mean_depth = 1.5;    // mean requests in flight below
};

// Every threshold by name with its value, in declaration order: for tests
// that check docs/findings.md against the code.
std::vector<std::pair<std::string, double>> threshold_table(const Thresholds& t = {});

// The findings, most severe first (high, warn, info), then by the rule's own
// magnitude (largest first), then by id.
std::vector<model::Finding> analyze(const model::Report& report, const Thresholds& t = {});

// report.findings = analyze(report): call once the report is complete.
void add_findings(model::Report& report);

}  // namespace iolens::analysis
