#include "analysis/findings.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "analysis/rules.h"

namespace iolens::analysis {

namespace detail {

const model::OpTable& data_ops(const model::Report& r) { return r.split.known ? r.split.data : r.totals; }

std::optional<double> ratio(double a, double b) {
    if (b == 0) return std::nullopt;
    return a / b;
}

std::optional<double> capture_share(const model::Report& r, uint64_t ns) {
    return ratio(static_cast<double>(ns), static_cast<double>(r.capture.duration_ns));
}

bool time_matters(const model::Report& r, const Thresholds& t, uint64_t ns) {
    if (const auto s = capture_share(r, ns)) return *s >= t.min_time_share;
    return ns >= t.min_time_ns;
}

double round4(double v) { return std::round(v * 10000.0) / 10000.0; }

std::string pct(double fraction) { return fmt::format("{:.0f}%", fraction * 100.0); }

}  // namespace detail

std::vector<std::pair<std::string, double>> threshold_table(const Thresholds& t) {
    const auto d = [](auto v) { return static_cast<double>(v); };
    return {
        {"min_time_share", t.min_time_share},
        {"min_time_ns", d(t.min_time_ns)},
        {"small_read_bytes", d(t.small_read_bytes)},
        {"small_reads_min_calls", d(t.small_reads_min_calls)},
        {"random_min_file_accesses", d(t.random_min_file_accesses)},
        {"random_min_accesses", d(t.random_min_accesses)},
        {"random_share", t.random_share},
        {"random_large_read_bytes", d(t.random_large_read_bytes)},
        {"stall_min_wall_ns", d(t.stall_min_wall_ns)},
        {"stall_min_ns", d(t.stall_min_ns)},
        {"stall_warn_share", t.stall_warn_share},
        {"stall_high_share", t.stall_high_share},
        {"imbalance_ratio", t.imbalance_ratio},
        {"imbalance_high_ratio", t.imbalance_high_ratio},
        {"imbalance_min_io_share", t.imbalance_min_io_share},
        {"imbalance_min_excess_ns", d(t.imbalance_min_excess_ns)},
        {"imbalance_min_bytes", d(t.imbalance_min_bytes)},
        {"imbalance_cache_gap", t.imbalance_cache_gap},
        {"imbalance_device_min_bytes", d(t.imbalance_device_min_bytes)},
        {"cache_min_epoch_index", d(t.cache_min_epoch_index)},
        {"cache_min_epoch_read_bytes", d(t.cache_min_epoch_read_bytes)},
        {"cache_max_hit_ratio", t.cache_max_hit_ratio},
        {"cache_min_miss_share", t.cache_min_miss_share},
        {"cache_high_hit_ratio", t.cache_high_hit_ratio},
        {"metadata_min_calls", d(t.metadata_min_calls)},
        {"metadata_time_share", t.metadata_time_share},
        {"metadata_high_time_share", t.metadata_high_time_share},
        {"metadata_opens_per_mib", t.metadata_opens_per_mib},
        {"small_files_min_files", d(t.small_files_min_files)},
        {"small_file_bytes", d(t.small_file_bytes)},
        {"small_files_epoch_opens", d(t.small_files_epoch_opens)},
        {"readahead_min_bytes", d(t.readahead_min_bytes)},
        {"readahead_waste_share", t.readahead_waste_share},
        {"readahead_waste_high_share", t.readahead_waste_high_share},
        {"mmap_min_fault_bytes", d(t.mmap_min_fault_bytes)},
        {"mmap_min_major_faults", d(t.mmap_min_major_faults)},
        {"mmap_amplification", t.mmap_amplification},
        {"startup_min_ns", d(t.startup_min_ns)},
        {"checkpoint_min_sync_calls", d(t.checkpoint_min_sync_calls)},
        {"checkpoint_min_ns", d(t.checkpoint_min_ns)},
        {"checkpoint_share", t.checkpoint_share},
        {"checkpoint_high_share", t.checkpoint_high_share},
        {"shallow_async_min_requests", d(t.shallow_async_min_requests)},
        {"shallow_async_max_mean_depth", t.shallow_async_max_mean_depth},
    };
}

namespace {

// A stall whose reads a read-pattern finding explains: the loop waits for
// reads that the pattern makes slow (a cache too small or emptied by the job
// itself, readahead spent on pages never read, random requests, tiny calls).
// The pattern is the cause to fix and comes first, as severe as the stall it
// causes (self_eviction at most warn: the job may mean it); the stall follows
// it and says so, and the pattern's evidence says `explains`.
//
// A pattern explains the stall only when the stall is made of it:
// - at warn or above (an info finding is a fact, not a cost), or
//   self_eviction at any severity (info for intent, not size);
// - small_reads: the stalled rank's small calls (below small_read_bytes)
//   carry at least half its read bytes (bounded from above by their
//   power-of-two buckets), not just most of its calls: a loader that parses
//   a header in many tiny reads beside each large sample has a small median,
//   and its wait is for the large reads;
// - dataset_exceeds_cache, self_eviction: a stall in given epochs is in one
//   of the epochs the pattern names (a cold first epoch is neither);
// - among several, the most severe, then the first in kReadCauses (the
//   causes' magnitudes are on scales of their own).
constexpr std::string_view kReadCauses[] = {
    "dataset_exceeds_cache", "self_eviction", "readahead_waste",
    "mmap_random",           "random_access", "small_reads",
};

bool explains_stall(const detail::Candidate& stall, const detail::Candidate& c, const model::Report& r,
                    const Thresholds& t) {
    const auto* it = std::find(std::begin(kReadCauses), std::end(kReadCauses), c.finding.id);
    if (it == std::end(kReadCauses)) return false;
    if (c.finding.severity == model::Severity::Info && *it != "self_eviction") return false;
    const auto& ev = stall.finding.evidence;
    if (*it == "small_reads") {
        const auto rank = ev["rank"];
        const auto rs = std::find_if(r.ranks.begin(), r.ranks.end(), [&](const auto& x) {
            return rank.is_number_integer() && x.rank == rank.get<int64_t>();
        });
        if (rs == r.ranks.end()) return false;
        const auto& rd = rs->ops[IOLENS_OP_READ];
        uint64_t small_bytes = 0;  // at most
        for (const auto& b : rd.size_bytes.buckets())
            if (b.hi <= t.small_read_bytes) small_bytes += b.count * b.hi;
        if (rd.bytes == 0 || small_bytes < rd.bytes / 2) return false;
    }
    if ((*it == "dataset_exceeds_cache" || *it == "self_eviction") && ev["epochs"].is_array() &&
        !ev["epochs"].empty()) {
        bool overlap = false;
        for (const auto& s : ev["epochs"])
            for (const auto& e : c.finding.evidence["epochs"])
                overlap = overlap || (s.contains("epoch") && e.contains("epoch") && s["epoch"] == e["epoch"]);
        if (!overlap) return false;
    }
    return true;
}

void explain_stall_by_reads(detail::Candidates& all, const model::Report& r, const Thresholds& t) {
    auto stall =
        std::find_if(all.begin(), all.end(), [](const auto& c) { return c.finding.id == "io_stall"; });
    if (stall == all.end() || !stall->explained_by.empty()) return;
    const auto rank_of = [](std::string_view id) {
        return std::find(std::begin(kReadCauses), std::end(kReadCauses), id) - std::begin(kReadCauses);
    };
    detail::Candidate* cause = nullptr;
    for (auto& c : all) {
        if (!explains_stall(*stall, c, r, t)) continue;
        if (!cause || c.finding.severity < cause->finding.severity ||
            (c.finding.severity == cause->finding.severity &&
             rank_of(c.finding.id) < rank_of(cause->finding.id)))
            cause = &c;
    }
    if (!cause) return;
    const auto cap = cause->finding.id == "self_eviction" ? model::Severity::Warn : model::Severity::High;
    cause->finding.severity = std::min(cause->finding.severity, std::max(stall->finding.severity, cap));
    cause->finding.evidence.text("explains", "io_stall");
    stall->explained_by = cause->finding.id;
    stall->finding.evidence.text("explained_by", cause->finding.id);
    stall->finding.title += fmt::format(" (its reads are slowed: see {})", cause->finding.id);
}

// Metadata time that is the opens and closes of a data set of many small
// files -- each file opened about once an epoch -- is what many_small_files
// names: the files are the cause to fix (pack them, and the opens go), the
// metadata share is how much they cost. So many_small_files comes first, at
// least as severe as the metadata finding it explains and in its place among
// the others, and the metadata finding follows it and says so.
// Ranked the other way, the first finding of such a job turned on how fast
// the host opened files that minute (a share of 50% is warn, 60% high).
// Not when the metadata is something else: mostly stats or readdirs, or
// more than 1.5 opens per file an epoch (a file reopened per sample: opening
// once and keeping it open is metadata_heavy's own fix).
void explain_metadata_by_small_files(detail::Candidates& all, const model::Report& r) {
    const auto find = [&](std::string_view id) {
        return std::find_if(all.begin(), all.end(), [&](const auto& c) { return c.finding.id == id; });
    };
    const auto md = find("metadata_heavy");
    const auto files = find("many_small_files");
    if (md == all.end() || files == all.end() || !md->explained_by.empty()) return;
    const auto& ev = md->finding.evidence;
    const auto count = [](const nlohmann::json& v) { return v.is_number_unsigned() ? v.get<uint64_t>() : 0; };
    const uint64_t md_time = count(ev["metadata_time_ns"]);
    const auto class_time = [&](const char* cls) -> uint64_t {
        const nlohmann::json& by = ev["by_class"];
        if (!by.is_object() || !by.contains(cls) || !by[cls].is_object() || !by[cls].contains("time_ns"))
            return 0;
        return count(by[cls]["time_ns"]);
    };
    const uint64_t open_close_time = class_time("open") + class_time("close");
    const uint64_t opens = count(ev["opens"]);
    const uint64_t files_read = count(files->finding.evidence["files_read"]);
    const uint64_t epochs = std::max<uint64_t>(1, r.epochs.size());
    // At most 1.5 opens per file read an epoch: once each, and some margin
    // (a few files opened twice, the directory listed once).
    if (md_time == 0 || open_close_time * 2 < md_time || files_read == 0 ||
        2 * opens > 3 * files_read * epochs)
        return;
    // The pair takes the place the metadata finding had: its severity and,
    // at that severity, its magnitude (many_small_files's own is on a scale
    // of its own, files read per 1,000: a high one would jump ahead of
    // every other high finding); at the same severity, the better of the two.
    if (md->finding.severity < files->finding.severity) {
        files->finding.severity = md->finding.severity;
        files->magnitude = md->magnitude;
    } else if (md->finding.severity == files->finding.severity) {
        files->magnitude = std::max(files->magnitude, md->magnitude);
    }
    files->finding.evidence.text("explains", "metadata_heavy");
    md->explained_by = files->finding.id;
    md->finding.evidence.text("explained_by", files->finding.id);
    md->finding.title += " (the opens of many small files: see many_small_files)";
}

}  // namespace

std::vector<model::Finding> analyze(const model::Report& report, const Thresholds& t) {
    using Rule = void (*)(const model::Report&, const Thresholds&, detail::Candidates&);
    static constexpr Rule kRules[] = {
        detail::io_stall,         detail::rank_imbalance,
        detail::checkpoint_stall, detail::dataset_exceeds_cache,
        detail::small_reads,      detail::random_access,
        detail::metadata_heavy,   detail::many_small_files,
        detail::readahead_waste,  detail::shallow_async,
        detail::mmap_random,      detail::startup_io,
        detail::self_eviction,
    };
    detail::Candidates all;
    for (Rule rule : kRules) rule(report, t, all);
    explain_stall_by_reads(all, report, t);
    explain_metadata_by_small_files(all, report);
    // A symptom follows its cause: never more severe, and after it.
    for (auto& c : all) {
        if (c.explained_by.empty()) continue;
        for (const auto& cause : all) {
            if (cause.finding.id != c.explained_by) continue;
            if (c.finding.severity <= cause.finding.severity) {
                c.finding.severity = cause.finding.severity;
                c.magnitude = std::min(c.magnitude, cause.magnitude * 0.999);
            }
        }
    }
    std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
        if (a.finding.severity != b.finding.severity) return a.finding.severity < b.finding.severity;
        if (a.magnitude != b.magnitude) return a.magnitude > b.magnitude;
        return a.finding.id < b.finding.id;
    });
    std::vector<model::Finding> out;
    out.reserve(all.size());
    for (auto& c : all) out.push_back(std::move(c.finding));
    return out;
}

void add_findings(model::Report& report) { report.findings = analyze(report); }

}  // namespace iolens::analysis
