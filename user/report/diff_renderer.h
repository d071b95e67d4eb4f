#pragma once
// The views of an analysis::ReportDiff (`iolens diff`): the terminal text and
// the JSON document ("schema": "iolens.diff", "version": 1;
// docs/diff.md). They print what the diff computed and nothing else.
#include <nlohmann/json.hpp>
#include <string>

#include "analysis/diff.h"

namespace iolens::report {

inline constexpr const char* kDiffSchema = "iolens.diff";
inline constexpr int kDiffVersion = 1;

std::string diff_to_text(const analysis::ReportDiff& diff);
nlohmann::json diff_to_json(const analysis::ReportDiff& diff);

}  // namespace iolens::report
