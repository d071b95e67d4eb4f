#include <spdlog/spdlog.h>

#include "cli/commands.h"
#include "cli/output.h"
#include "analysis/summarize.h"

namespace iolens::cli {

namespace {

struct ReportCliOptions {
    std::vector<std::string> inputs = {"iolens.data"};
    bool allow_mixed = false;
    OutputOptions out;
};

}  // namespace

void register_report(CLI::App& app, Action& action) {
    auto opts = std::make_shared<ReportCliOptions>();
    auto* sub = app.add_subcommand("report", "Summarize a recording (no privileges needed)");
    sub->add_option("file", opts->inputs,
                    "Recording to read; several (the nodes of one job: job-42/*.iolens) are merged into one "
                    "report of the whole job")
        ->type_name("FILE...")
        ->capture_default_str();
    sub->add_flag("--allow-mixed", opts->allow_mixed,
                  "Merge recordings of different jobs (their job ids differ) instead of refusing");
    sub->add_flag("-f,--force", opts->out.force, "Replace an existing JSON or HTML report");
    add_output_options(
        sub, opts->out,
        "Environment variable holding each process's rank (must have been recorded: give it to "
        "record too)");
    sub->footer(
        "Exit status: 0 for a complete recording, 3 for a partial one (recorder killed, file\n"
        "truncated or damaged: the report is printed and marked partial), 1 when the file is not a\n"
        "readable recording, 2 for a usage error.");
    sub->callback([opts, &action]() {
        action = [opts]() -> int {
            for (const auto& input : opts->inputs)
                if (auto r = check_outputs(opts->out, input); !r) {
                    spdlog::error("{}", r.error().message);
                    return 2;
                }
            auto report = analysis::summarize_job(opts->inputs, builder_options(opts->out),
                                                  model::MergeOptions{opts->allow_mixed});
            if (!report) {
                spdlog::error("{}", report.error().message);
                return 1;
            }
            if (report->capture.partial) spdlog::warn("partial report: {}", report->capture.partial_reason);
            if (auto r = emit_report(*report, opts->out); !r) {
                spdlog::error("{}", r.error().message);
                return 1;
            }
            return report->capture.partial ? 3 : 0;
        };
    });
}

}  // namespace iolens::cli
