#pragma once
// The JSON view of a Report: the machine-readable contract documented in
// docs/report-schema.md ("schema": "iolens.report", "version": 1). Keys may be
// added in a version; removing or changing the meaning of one bumps it.
#include <nlohmann/json.hpp>
#include <functional>
#include <string>
#include <string_view>

#include "model/report.h"
#include "util/result.h"

namespace iolens::report {

inline constexpr const char* kReportSchema = "iolens.report";
inline constexpr int kReportVersion = 1;

nlohmann::json report_to_json(const model::Report& report);
// with_files false: "files" is an empty array (report_to_json_text adds
// them one at a time).
nlohmann::json report_to_json(const model::Report& report, bool with_files);
// Pretty (2-space indent), newline-terminated. Bytes that are not UTF-8 (file
// names are arbitrary bytes) become U+FFFD rather than failing the dump; use
// this rather than dumping report_to_json() yourself.
std::string report_to_json_text(const model::Report& report);
// The same text handed to put in pieces, in order (their concatenation is
// report_to_json_text's), made on two threads: a large report's files are
// written while the rest are made. Stops at put's first error.
Result<void> write_report_json(const model::Report& report,
                               const std::function<Result<void>(std::string_view)>& put);

}  // namespace iolens::report
