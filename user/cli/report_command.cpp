#include <spdlog/spdlog.h>

#include "cli/commands.h"
#include "cli/output.h"
#include "analysis/summarize.h"

namespace iolens::cli {

namespace {

struct ReportCliOptions {
    std::string input = "iolens.data";
    OutputOptions out;
};

}  // namespace

void register_report(CLI::App& app, Action& action) {
    auto opts = std::make_shared<ReportCliOptions>();
    auto* sub = app.add_subcommand("report", "Summarize a recording (no privileges needed)");
    sub->add_option("file", opts->input, "Recording to read")->type_name("FILE")->capture_default_str();
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
            if (auto r = check_outputs(opts->out, opts->input); !r) {
                spdlog::error("{}", r.error().message);
                return 2;
            }
            auto report = analysis::summarize(opts->input, builder_options(opts->out));
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
