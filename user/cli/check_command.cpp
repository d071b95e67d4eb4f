#include <cstdio>

#include "cli/commands.h"
#include "cli/node_text.h"
#include "probes/features.h"

namespace iolens::cli {

namespace {

// Prints what this node offers and returns 0 when `record` can run here.
int run_check() {
    auto f = probes::Features::probe();
    bool ok = print_node(f);
    std::printf("\n%s\n", ok              ? "iolens record can run here."
                          : f.can_trace() ? "iolens record cannot run here: see the probes above."
                                          : "iolens record cannot run here: it needs CAP_BPF and CAP_PERFMON "
                                            "(or CAP_SYS_ADMIN): run it as root.");
    return ok ? 0 : 1;
}

}  // namespace

void register_check(CLI::App& app, Action& action) {
    auto* sub = app.add_subcommand("check", "Can this node run iolens, and with which hooks?");
    sub->footer("Exit status: 0 when iolens record can run here, 1 otherwise.");
    sub->callback([&action]() { action = run_check; });
}

}  // namespace iolens::cli
