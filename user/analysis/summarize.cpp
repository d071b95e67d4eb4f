#include "analysis/summarize.h"

#include "analysis/findings.h"
#include "model/call_site_builder.h"
#include "model/replay.h"
#include "model/report_codec.h"

namespace iolens::analysis {

namespace {

// A recording, replayed with options, or a report partial (model/report_codec.h),
// made with the options it was made with.
Result<model::Report> load(const std::string& path, const model::BuilderOptions& options) {
    if (model::is_partial_file(path)) return model::load_partial(path);
    // record --stacks: the call sites are built on the same read.
    model::CallSiteBuilder sites;
    auto report = model::load_recording(path, options, [&](const recording::Chunk& c) { sites.on_chunk(c); });
    if (report) report->call_sites = sites.finish();
    return report;
}

}  // namespace

Result<model::Report> summarize(const std::string& path, const model::BuilderOptions& options) {
    auto report = load(path, options);
    if (!report) return report.error();
    add_findings(*report);
    return report;
}

Result<model::Report> summarize_job(const std::vector<std::string>& paths,
                                    const model::BuilderOptions& options, const model::MergeOptions& merge) {
    if (paths.size() == 1) return summarize(paths.front(), options);
    // One report at a time, folded in as it is read (model::JobMerger).
    model::JobMerger merger(merge);
    for (const auto& p : paths) {
        auto report = load(p, options);
        if (!report) return make_error(p + ": " + report.error().message);
        if (auto a = merger.add(p, std::move(*report)); !a) return a.error();
    }
    auto merged = merger.finish();
    if (!merged) return merged.error();
    add_findings(*merged);
    return merged;
}

}  // namespace iolens::analysis
