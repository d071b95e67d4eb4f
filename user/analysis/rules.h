#pragma once
// Internal to user/analysis: the rules and the helpers they share. Each rule
// appends zero or more candidates; the engine (findings.cpp) orders them.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/findings.h"
#include "util/units.h"

namespace iolens::analysis::detail {

struct Candidate {
    model::Finding finding;
    double magnitude = 0;  // rule-specific; larger sorts first within a severity
    // The id of a finding that explains this one (a symptom of it): when that
    // finding is present too, this one is ordered after it and is never more
    // severe (findings.cpp). Empty: independent.
    std::string explained_by;
};
using Candidates = std::vector<Candidate>;

void small_reads(const model::Report& r, const Thresholds& t, Candidates& out);
void random_access(const model::Report& r, const Thresholds& t, Candidates& out);
void metadata_heavy(const model::Report& r, const Thresholds& t, Candidates& out);
void many_small_files(const model::Report& r, const Thresholds& t, Candidates& out);
void dataset_exceeds_cache(const model::Report& r, const Thresholds& t, Candidates& out);
void self_eviction(const model::Report& r, const Thresholds& t, Candidates& out);
void readahead_waste(const model::Report& r, const Thresholds& t, Candidates& out);
void io_stall(const model::Report& r, const Thresholds& t, Candidates& out);
void rank_imbalance(const model::Report& r, const Thresholds& t, Candidates& out);
void checkpoint_stall(const model::Report& r, const Thresholds& t, Candidates& out);
void shallow_async(const model::Report& r, const Thresholds& t, Candidates& out);

void startup_io(const model::Report& r, const Thresholds& t, Candidates& out);
void mmap_random(const model::Report& r, const Thresholds& t, Candidates& out);

// The calls of the job's data (CallSplit::data: after start-up, not on
// software files, not the flush of written files), or every call when the
// split is not known.
const model::OpTable& data_ops(const model::Report& r);
// a / b, or nothing when b is 0.
std::optional<double> ratio(double a, double b);
// ns summed over threads as a share of the capture's duration (nothing when
// the duration is unknown).
std::optional<double> capture_share(const model::Report& r, uint64_t ns);
// Whether ns of I/O time is worth a finding (Thresholds::min_time_share /
// min_time_ns).
bool time_matters(const model::Report& r, const Thresholds& t, uint64_t ns);
// A fraction rounded to 4 decimals, for evidence.
double round4(double v);
// "42%" for titles.
std::string pct(double fraction);
// Titles use util/units.h: human_bytes, human_ns, human_count.

}  // namespace iolens::analysis::detail
