#include "cli/output.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>

#include "analysis/findings.h"
#include "report/json_renderer.h"
#include "report/terminal_renderer.h"

namespace iolens::cli {

Result<void> emit_report(const model::Report& finished, const OutputOptions& options)
{
    // Findings are computed here, on the one path both `record` and `report`
    // take, so the live summary and the re-read one always agree.
    model::Report report = finished;
    analysis::add_findings(report);
    if (!options.json_path.empty()) {
        std::ofstream out(options.json_path, std::ios::binary | std::ios::trunc);
        if (!out)
            return make_error("cannot write the JSON report to " + options.json_path + ": " +
                              std::strerror(errno));
        out << report::report_to_json_text(report) << '\n';
        if (!out.flush())
            return make_error("cannot write the JSON report to " + options.json_path + ": " +
                              std::strerror(errno));
    }
    report::TerminalOptions t;
    t.color = options.color == "always" || (options.color == "auto" && isatty(STDOUT_FILENO));
    t.top_n = options.top;
    report::render_terminal(report, std::cout, t);
    std::cout.flush();
    return {};
}

}  // namespace iolens::cli
