#include "cli/output.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>

#include "report/json_renderer.h"
#include "report/terminal_renderer.h"

namespace iolens::cli {

model::BuilderOptions builder_options(const OutputOptions& options)
{
    model::BuilderOptions b;
    b.max_files = options.max_files;
    b.rank_env_override = options.rank_env;
    return b;
}

Result<void> emit_report(const model::Report& report, const OutputOptions& options)
{
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
