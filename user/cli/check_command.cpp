#include <cstdio>

#include "cli/commands.h"
#include "probes/catalog.h"
#include "probes/features.h"

namespace iolens::cli {

namespace {

const char* yes_no(bool b) { return b ? "yes" : "no"; }

// Prints what this node offers and returns 0 when `record` can run here.
int run_check()
{
    auto f = probes::Features::probe();
    auto plans = probes::plan_probes(f);
    std::printf("kernel          %s\n", f.kernel_release.c_str());
    std::printf("BTF             %s\n", f.btf ? "yes (/sys/kernel/btf/vmlinux)" : "no");
    std::printf("CAP_BPF         %s\n", yes_no(f.cap_bpf));
    std::printf("CAP_PERFMON     %s\n", yes_no(f.cap_perfmon));
    std::printf("CAP_SYS_ADMIN   %s\n", yes_no(f.cap_sys_admin));
    std::printf("tracefs         %s\n", f.tracefs ? "mounted" : "not mounted (not needed: iolens uses raw tracepoints)");
    if (f.can_trace()) {
        std::printf("ring buffer     %s\n", yes_no(f.ringbuf));
        std::printf("task storage    %s\n", yes_no(f.task_storage));
        std::printf("rdonly_cast     %s\n", yes_no(f.kfunc_rdonly_cast));
    } else {
        std::printf("ring buffer     unknown (needs privileges to probe)\n");
        std::printf("task storage    unknown (needs privileges to probe)\n");
    }
    std::printf("pid_max         %u\n\n", f.pid_max);
    std::printf("%-10s %-6s %s\n", "probe", "ready", "hook / reason");
    bool all = true;
    for (const auto& p : plans) {
        std::printf("%-10s %-6s %s\n", p.family.c_str(), yes_no(p.available),
                    p.available ? p.hook.c_str() : p.reason.c_str());
        if (p.available)
            std::printf("%-10s %-6s   (%s)\n", "", "", p.reason.c_str());
        for (const auto& d : p.degraded)
            std::printf("%-10s %-6s   degraded: %s\n", "", "", d.c_str());
        // Only the essential families decide whether record can run.
        if (const auto* spec = probes::find_family(p.family); spec && spec->essential)
            all = all && p.available;
    }
    bool ok = all && f.can_trace() && f.ringbuf;
    std::printf("\n%s\n", ok ? "iolens record can run here."
                             : f.can_trace() ? "iolens record cannot run here: see the probes above."
                                             : "iolens record cannot run here: it needs CAP_BPF and CAP_PERFMON "
                                               "(or CAP_SYS_ADMIN): run it as root.");
    return ok ? 0 : 1;
}

}  // namespace

void register_check(CLI::App& app, Action& action)
{
    auto* sub = app.add_subcommand("check", "Can this node run iolens, and with which hooks?");
    sub->callback([&action]() { action = run_check; });
}

}  // namespace iolens::cli
