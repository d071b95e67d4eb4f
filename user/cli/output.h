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

Result<void> emit_report(const model::Report& report, const OutputOptions& options);

}  // namespace iolens::cli
