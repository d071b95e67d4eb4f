#include "analysis/summarize.h"

#include "analysis/findings.h"
#include "model/replay.h"

namespace iolens::analysis {

Result<model::Report> summarize(const std::string& path, const model::BuilderOptions& options) {
    auto report = model::load_recording(path, options);
    if (!report) return report.error();
    add_findings(*report);
    return report;
}

}  // namespace iolens::analysis
