#pragma once
// The bash completion script of iolens, generated from the CLI11 definitions
// through cli_doc.h: the visible subcommands, each one's options, and for an
// option's value what its type names (--help shows the same): FILE file
// names, DIR directories, VAR environment variable names, COMMAND a command
// then its arguments' file names, "{a,b,c}" those words; any other value
// (N, DURATION) nothing.
#include <CLI/CLI.hpp>
#include <string>

namespace iolens::cli {

std::string bash_completion(const CLI::App& root);

}  // namespace iolens::cli
