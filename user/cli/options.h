#pragma once
// Option values shared by several subcommands, and their parsing. The CLI11
// registration of each subcommand lives in its own <name>_command.cpp.
#include <cstdint>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "util/result.h"

namespace iolens::cli {

// "90" (seconds), "500ms", "30s", "5m", "1h", "1.5s" -> nanoseconds. Decimal
// only: "0x10s", "inf", "1e3s" and "" are refused.
Result<uint64_t> parse_duration(const std::string& text);

// A CLI11 check for a whole number from min to max, in decimal digits only
// (CLI11 itself would take "-1" into an unsigned option as 2^64 - 1).
CLI::Validator whole_number(uint64_t min, uint64_t max);
// A CLI11 check that refuses an empty value (-d "").
CLI::Validator not_empty();

// Options every report-producing subcommand takes.
struct OutputOptions {
    std::string json_path;  // --json PATH: also write the JSON report here
    std::string html_path;  // --html PATH: also write the HTML report here
    size_t max_files = 10000;
    size_t top = 10;
    std::string color = "auto";  // auto|always|never
    std::string rank_env;        // --rank-env VAR: take ranks from VAR first
    bool force = false;          // -f: replace an existing JSON or HTML report
};

// Registers --json, --html, --max-files, --top, --color and --rank-env on a
// subcommand (record and report take the same ones); rank_env_help says what
// --rank-env means there.
void add_output_options(CLI::App* sub, OutputOptions& out, const std::string& rank_env_help);

}  // namespace iolens::cli
