#include "cli/output.h"

#include <unistd.h>

#include <iostream>

#include "report/html_renderer.h"
#include "report/json_renderer.h"
#include "report/terminal_renderer.h"
#include "util/output_file.h"

namespace iolens::cli {

model::BuilderOptions builder_options(const OutputOptions& options) {
    model::BuilderOptions b;
    b.max_files = options.max_files;
    b.rank_env_override = options.rank_env;
    if (!options.html_path.empty()) b.timeline_bins = report::kHtmlTimelineBins;
    return b;
}

Result<void> check_outputs(const OutputOptions& options, const std::string& recording) {
    if (!options.json_path.empty()) {
        if (same_file(options.json_path, recording))
            return make_error("--json " + options.json_path + " and the recording " + recording +
                              " are the same file: give the JSON report a name of its own");
        if (auto r = check_output_path(options.json_path, options.force, "the JSON report"); !r) return r;
    }
    if (!options.html_path.empty()) {
        if (same_file(options.html_path, recording))
            return make_error("--html " + options.html_path + " and the recording " + recording +
                              " are the same file: give the HTML report a name of its own");
        if (!options.json_path.empty() && same_file(options.html_path, options.json_path))
            return make_error("--html " + options.html_path + " and --json " + options.json_path +
                              " are the same file: give each report a name of its own");
        if (auto r = check_output_path(options.html_path, options.force, "the HTML report"); !r) return r;
    }
    return {};
}

Result<void> emit_report(const model::Report& report, const OutputOptions& options) {
    if (!options.json_path.empty()) {
        const auto write = [&report](const PutText& put) -> Result<void> {
            if (auto r = report::write_report_json(report, put); !r) return r;
            return put("\n");
        };
        if (auto r = write_output_file(options.json_path, options.force, "the JSON report", write); !r)
            return r;
    }
    if (!options.html_path.empty())
        if (auto r = write_output_file(options.html_path, options.force, "the HTML report",
                                       report::report_to_html(report));
            !r)
            return r;
    report::TerminalOptions t;
    t.color = options.color == "always" || (options.color == "auto" && isatty(STDOUT_FILENO));
    t.top_n = options.top;
    report::render_terminal(report, std::cout, t);
    std::cout.flush();
    return {};
}

}  // namespace iolens::cli
