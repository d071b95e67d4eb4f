#pragma once
// The one path from a recording to what the renderers show: the recording is
// replayed into the model (model/replay.h), and the findings are added to it
// (analysis/findings.h), once, in place. `record` (after the job) and `report`
// both call this, so their summaries cannot differ.
#include <string>

#include "model/report.h"
#include "model/report_builder.h"
#include "util/result.h"

namespace iolens::analysis {

// Errors only when the file is not a readable recording at all; a damaged or
// unfinished one gives a report marked partial (capture.partial).
Result<model::Report> summarize(const std::string& path, const model::BuilderOptions& options = {});

}  // namespace iolens::analysis
