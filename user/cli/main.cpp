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

int main(int argc, char** argv)
{
    iolens::capture::take_signal_dispositions();
    iolens::cli::setup_logging();

    CLI::App app;
    iolens::cli::Action action;
    iolens::cli::build_app(app, action);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }
    try {
        return action ? action() : 2;
    } catch (const std::exception& e) {
        spdlog::error("{}", e.what());
        return 1;
    }
}
