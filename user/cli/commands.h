#pragma once
// Registration of the subcommands on the CLI11 app. Each register_* adds its
// options (held in a shared_ptr the callback captures) and, when the
// subcommand is chosen, stores the function that runs it in `action`.
#include <CLI/CLI.hpp>
#include <functional>

namespace iolens::cli {

using Action = std::function<int()>;

void register_record(CLI::App& app, Action& action);
void register_report(CLI::App& app, Action& action);
void register_diff(CLI::App& app, Action& action);
void register_top(CLI::App& app, Action& action);
void register_export(CLI::App& app, Action& action);
void register_check(CLI::App& app, Action& action);
void register_self_test(CLI::App& app, Action& action);
// Hidden: `__man-pages DIR` and `__bash-completion` (generate_command.cpp).
// Their actions refer to `app`, which must outlive them.
void register_generators(CLI::App& app, Action& action);

// Builds the whole command line; `main` and the CLI tests share it.
void build_app(CLI::App& app, Action& action);

}  // namespace iolens::cli
