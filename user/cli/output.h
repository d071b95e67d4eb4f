#pragma once
// Where a finished report (analysis::summarize) goes: the terminal summary on
// stdout (colour only on a tty, unless told), and the JSON report to --json PATH.
#include "cli/options.h"
#include "model/report.h"
#include "model/report_builder.h"
#include "util/result.h"

namespace iolens::cli {

// What the summary is built with (--max-files, --rank-env).
model::BuilderOptions builder_options(const OutputOptions& options);

// Whether the JSON and HTML reports may be written where --json and --html say (before anything
// runs): the output-file rules (util/output_file.h), and never the recording
// itself (the same file however named).
Result<void> check_outputs(const OutputOptions& options, const std::string& recording);

// The JSON and HTML reports first (a closed stdout must not cost the files),
// then the terminal summary.
Result<void> emit_report(const model::Report& report, const OutputOptions& options);

}  // namespace iolens::cli
