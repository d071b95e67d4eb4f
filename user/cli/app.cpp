#include "cli/commands.h"

namespace iolens::cli {

void build_app(CLI::App& app, Action& action)
{
    app.description(
        "iolens: an eBPF I/O profiler for deep-learning training jobs.\n"
        "Traces file syscalls of a command or a running process tree and\n"
        "summarizes them per process and per file.");
    app.require_subcommand(1);
    register_record(app, action);
    register_report(app, action);
    register_check(app, action);
}

}  // namespace iolens::cli
