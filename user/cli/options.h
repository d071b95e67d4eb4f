#pragma once
// Option values shared by several subcommands, and their parsing. The CLI11
// registration of each subcommand lives in its own <name>_command.cpp.
#include <cstdint>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "util/result.h"

namespace iolens::cli {

// "90" (seconds), "500ms", "30s", "5m", "1h", "1.5s" -> nanoseconds.
Result<uint64_t> parse_duration(const std::string& text);

// Options every report-producing subcommand takes.
struct OutputOptions {
    std::string json_path;  // --json PATH: also write the JSON report here
    size_t max_files = 10000;
    size_t top = 10;
    std::string color = "auto";  // auto|always|never
    std::string rank_env;        // --rank-env VAR: take ranks from VAR first
    bool force = false;          // -f: replace an existing JSON report
};

// Registers --json, --max-files, --top, --color and --rank-env on a
// subcommand (record and report take the same ones); rank_env_help says what
// --rank-env means there.
void add_output_options(CLI::App* sub, OutputOptions& out, const std::string& rank_env_help);

}  // namespace iolens::cli
