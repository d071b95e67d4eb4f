// iolens entry point: builds the command line, runs the chosen subcommand, and
// turns any error into a message on stderr and a non-zero exit at this one
// boundary. Data goes to stdout, logs to stderr.
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>

#include "capture/signals.h"
#include "cli/commands.h"
#include "cli/logging.h"

int main(int argc, char** argv) {
    iolens::capture::take_signal_dispositions();
    iolens::cli::setup_logging();

    CLI::App app;
    iolens::cli::Action action;
    iolens::cli::build_app(app, action);
    // An unknown subcommand: CLI11 would only say "A subcommand is required".
    const auto known = [&](const std::string& name) {
        for (const auto* sub : app.get_subcommands({}))
            if (sub->get_name() == name) return true;
        return false;
    };
    if (argc > 1 && argv[1][0] != '-' && !known(argv[1])) {
        std::string names;
        for (const auto* sub : app.get_subcommands({}))
            if (!sub->get_group().empty())  // hidden ones are internal
                names += (names.empty() ? "" : ", ") + sub->get_name();
        spdlog::error("unknown command '{}': iolens has {} (iolens --help)", argv[1], names);
        return 2;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        // --help and --version exit 0; every usage error exits 2, as
        // iolens's own checks do (CLI11 would use 104-109).
        return app.exit(e) == 0 ? 0 : 2;
    }
    try {
        return action ? action() : 2;
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return 1;
    }
}
