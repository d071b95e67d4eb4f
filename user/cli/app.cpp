#include "cli/commands.h"

#include <spdlog/spdlog.h>

#include "cli/version.h"

namespace iolens::cli {

void build_app(CLI::App& app, Action& action) {
    app.description(
        "iolens: an eBPF I/O profiler for deep-learning training jobs.\n"
        "Traces the file I/O of a command or a running process tree, from the\n"
        "syscalls down to the page cache and the block devices, and summarizes\n"
        "it per process, file, rank and epoch, with findings.");
    app.require_subcommand(1);
    app.fallthrough();  // global flags (-v) are accepted after the subcommand too
    // Debug logs show the facts of every run (hooks chosen, loads retried).
    app.add_flag_callback(
        "-v,--verbose", [] { spdlog::set_level(spdlog::level::debug); }, "Log debug details to stderr");
    register_record(app, action);
    register_report(app, action);
    register_diff(app, action);
    register_top(app, action);
    register_export(app, action);
    register_check(app, action);
    register_self_test(app, action);
    register_generators(app, action);
    app.set_version_flag(
        "--version",
        [] {
            auto text = version_text();
            text.pop_back();  // CLI11 ends it with its own newline
            return text;
        },
        "Print the version, the git commit built from and the BPF builds carried, and exit");
}

}  // namespace iolens::cli
