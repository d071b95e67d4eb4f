#pragma once
// `iolens diff A B`: what changed between two runs of a job. Both sides are
// JSON reports (docs/report-schema.md): a recording is summarized and viewed
// as JSON first, so a recording and a saved --json report compare the same
// way, and a report from another iolens is read by its schema and version.
// The comparison is computed here, once; the terminal and JSON views of it
// (report/diff_renderer.h) only print it.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace iolens::analysis {

// One side of a diff: a report and what it was read from.
struct DiffSide {
    std::string label;  // the file name given
    nlohmann::json report;
};

// Reads a recording (summarized with its findings) or a JSON report written
// by `--json` (schema "iolens.report"; a newer version than this iolens
// reads, or another document, is refused with the reason).
Result<DiffSide> load_diff_side(const std::string& path);

// Which way is better for a figure.
enum class Better { Lower, Higher, Neither };

// A figure of both runs. `a`/`b` are empty where a run lacks it (an epoch or
// a rank only one run has).
struct DiffRow {
    std::string section;  // "run", "epochs", "ranks", "classes", "page cache", "block"
    std::string name;     // "wall time", "epoch 2 time", "rank 0 stall share", ...
    std::string unit;     // "ns", "bytes", "bytes/s", "share", "count"
    std::optional<double> a, b;
    Better better = Better::Neither;
    // "better", "worse", "within noise", "same", "changed", "only in A",
    // "only in B"
    std::string verdict;
    std::optional<double> change;  // (b - a) / a, when a != 0
};

// A log2 histogram of both runs side by side (read sizes, read latency).
struct DiffHistogram {
    std::string name;  // "read size", "read latency"
    std::string unit;  // "bytes", "ns"
    struct Bucket {
        uint64_t lo = 0, hi = 0, a = 0, b = 0;
    };
    std::vector<Bucket> buckets;  // every bucket either run has, by lo
    uint64_t p50_a = 0, p50_b = 0, p99_a = 0, p99_b = 0;
    uint64_t count_a = 0, count_b = 0;
};

struct FindingChange {
    std::string id;
    std::string status;  // "resolved", "new", "unchanged"
    std::string severity_a, severity_b;
    std::string title;  // B's (A's when resolved)
};

struct ReportDiff {
    std::string a_label, b_label;
    std::string headline;            // one line: what got better or worse, by how much
    std::vector<std::string> notes;  // commands differ, partial runs, noise basis
    // The share a time may move between the runs' own epochs (max - min over
    // the mean of epoch times, the larger of the two runs): a relative change
    // of a time below it is "within noise". kDefaultNoise without 2 epochs.
    double noise = 0;
    std::string noise_basis;
    std::vector<DiffRow> rows;
    std::vector<DiffHistogram> histograms;
    uint64_t files_a = 0, files_b = 0;
    std::vector<std::string> files_added, files_gone;  // data files by path (listed ones), capped
    uint64_t files_added_total = 0, files_gone_total = 0;
    std::vector<FindingChange> findings;
};

inline constexpr double kDefaultNoise = 0.05;
inline constexpr size_t kMaxDiffFiles = 20;

ReportDiff diff_reports(const DiffSide& a, const DiffSide& b);

}  // namespace iolens::analysis
