#pragma once
// Where a finished report goes: the terminal summary on stdout (colour only on
// a tty, unless told), and the JSON report to --json PATH.
#include "cli/options.h"
#include "model/report.h"
#include "util/result.h"

namespace iolens::cli {

Result<void> emit_report(const model::Report& report, const OutputOptions& options);

}  // namespace iolens::cli
