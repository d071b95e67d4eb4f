#include "cli/options.h"

#include <cmath>
#include <cstdlib>

namespace iolens::cli {

Result<uint64_t> parse_duration(const std::string& text)
{
    if (text.empty())
        return make_error("empty duration: give e.g. 30s, 500ms, 5m");
    char* end = nullptr;
    errno = 0;
    double value = std::strtod(text.c_str(), &end);
    std::string unit(end);
    if (end == text.c_str() || errno != 0 || !std::isfinite(value) || value <= 0)
        return make_error("invalid duration '" + text + "': give a positive number with a unit, e.g. 30s");
    double scale;
    if (unit.empty() || unit == "s")
        scale = 1e9;
    else if (unit == "ms")
        scale = 1e6;
    else if (unit == "us")
        scale = 1e3;
    else if (unit == "m" || unit == "min")
        scale = 60e9;
    else if (unit == "h")
        scale = 3600e9;
    else
        return make_error("invalid duration unit '" + unit + "' in '" + text + "': use ms, s, m or h");
    double ns = value * scale;
    if (ns >= 1.8e19)
        return make_error("duration '" + text + "' is too long");
    if (ns < 1)
        return make_error("duration '" + text + "' is too short");
    return static_cast<uint64_t>(ns);
}

void add_output_options(CLI::App* sub, OutputOptions& out, const std::string& rank_env_help)
{
    sub->add_option("--json", out.json_path, "Also write the JSON report to this file");
    sub->add_option("--max-files", out.max_files, "Files listed in the report")->capture_default_str();
    sub->add_option("--top", out.top, "Rows in the terminal's top tables")->capture_default_str();
    sub->add_option("--color", out.color, "Colour the summary: auto, always, never")
        ->check(CLI::IsMember({"auto", "always", "never"}));
    sub->add_option("--rank-env", out.rank_env, rank_env_help);
}

}  // namespace iolens::cli
