#pragma once
// Runs a command line through the real CLI11 app, for the CLI tests.
#include <algorithm>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace iolens::cli::test {

// The exit code CLI11 would give: 0 when parsing succeeded and a subcommand
// action was chosen, -1 when it succeeded without one.
inline int parse(std::vector<std::string> args, Action& action) {
    CLI::App app;
    build_app(app, action);
    std::reverse(args.begin(), args.end());
    try {
        app.parse(args);
    } catch (const CLI::ParseError& e) {
        return e.get_exit_code();
    }
    return action ? 0 : -1;
}

}  // namespace iolens::cli::test
