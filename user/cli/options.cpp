#include "cli/options.h"

#include <cmath>
#include <cstdlib>

namespace iolens::cli {

Result<uint64_t> parse_duration(const std::string& text) {
    if (text.empty()) return make_error("empty duration: give e.g. 30s, 500ms, 5m");
    // Digits, at most one point, then the unit: strtod alone would take hex
    // ("0x10s" as 16 s), exponents and "inf".
    const size_t digits = text.find_first_not_of("0123456789.");
    const std::string number = text.substr(0, digits);
    if (number.empty() || number.find('.') != number.rfind('.') || number == ".")
        return make_error("invalid duration '" + text + "': give a positive number with a unit, e.g. 30s");
    char* end = nullptr;
    errno = 0;
    double value = std::strtod(text.c_str(), &end);
    std::string unit(end);
    if (end != text.c_str() + number.size() || errno != 0 || !std::isfinite(value) || value <= 0)
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
    if (ns >= 1.8e19) return make_error("duration '" + text + "' is too long");
    if (ns < 1) return make_error("duration '" + text + "' is too short");
    return static_cast<uint64_t>(ns);
}

void add_output_options(CLI::App* sub, OutputOptions& out, const std::string& rank_env_help) {
    sub->add_option("--json", out.json_path, "Also write the JSON report to this file")->type_name("FILE");
    sub->add_option("--html", out.html_path,
                    "Also write the HTML report to this file (one self-contained page: docs/html-report.md)")
        ->type_name("FILE");
    sub->add_option("--max-files", out.max_files, "Files listed in the report")
        ->capture_default_str()
        ->check(whole_number(0, 100'000'000));
    sub->add_option("--top", out.top, "Rows in the terminal's top tables")
        ->capture_default_str()
        ->check(whole_number(1, 100'000));
    sub->add_option("--color", out.color, "Colour the summary: auto, always, never")
        ->check(CLI::IsMember({"auto", "always", "never"}));
    sub->add_option("--rank-env", out.rank_env, rank_env_help)->type_name("VAR");
}

CLI::Validator whole_number(uint64_t min, uint64_t max) {
    return CLI::Validator(
        [min, max](std::string& v) -> std::string {
            if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos)
                return "'" + v + "' is not a whole number (" + std::to_string(min) + " to " +
                       std::to_string(max) + ")";
            if (v.size() > 19 || std::stoull(v) < min || std::stoull(v) > max)
                return "'" + v + "' is out of range (" + std::to_string(min) + " to " + std::to_string(max) +
                       ")";
            return "";
        },
        "N");
}

CLI::Validator not_empty() {
    return CLI::Validator([](std::string& v) -> std::string { return v.empty() ? "an empty value" : ""; },
                          "");
}

}  // namespace iolens::cli
