#pragma once
// Both views of Report::findings (user/analysis/): the JSON array and the
// terminal's "Findings" section. Formatting only; the analysis decided what
// the findings and their evidence are.
#include <nlohmann/json.hpp>
#include <vector>

#include "model/report.h"
#include "report/terminal_sections.h"

namespace iolens::report {

// [ { "id", "severity", "title", "evidence": {...}, "recommendation" } ],
// most severe first (the order of Report::findings).
nlohmann::json findings_to_json(const std::vector<model::Finding>& findings);

namespace detail {

// An evidence key as a label ("read_time_ns" -> "read time"), and its value in
// human units ("12 ms", "34%", "n/a"): the terminal's and the HTML's.
std::string label_of(std::string_view key);
std::string value_of(const model::EvidenceValue& e);
// "Findings": per finding a severity tag and title, its evidence on one
// wrapped line (scalars only; per-rank / per-epoch rows are in the JSON), and
// its recommendation wrapped; "no findings" when there are none.
void findings_section(Ctx& c, const model::Report& r);
}  // namespace detail

}  // namespace iolens::report
