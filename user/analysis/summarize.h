#pragma once
// The one path from a recording to what the renderers show: the recording is
// replayed into the model (model/replay.h), and the findings are added to it
// (analysis/findings.h), once, in place. `record` (after the job) and `report`
// both call this, so their summaries cannot differ.
#include <string>

#include <vector>

#include "model/job_merge.h"
#include "model/report.h"
#include "model/report_builder.h"
#include "util/result.h"

namespace iolens::analysis {

// Errors only when the file is not a readable recording at all; a damaged or
// unfinished one gives a report marked partial (capture.partial). A report
// partial (model/report_codec.h: `iolens report --partial`) is read as the
// report it stores, made with the options it was made with.
Result<model::Report> summarize(const std::string& path, const model::BuilderOptions& options = {});

// Many recordings (the nodes of one job) as one report: each replayed on its
// own, merged (model/job_merge.h), the findings run over the whole job. One
// path is summarize().
Result<model::Report> summarize_job(const std::vector<std::string>& paths,
                                    const model::BuilderOptions& options = {},
                                    const model::MergeOptions& merge = {});

}  // namespace iolens::analysis
