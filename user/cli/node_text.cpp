#include "cli/node_text.h"

#include <cstdio>

#include "probes/catalog.h"

namespace iolens::cli {

namespace {

const char* yes_no(bool b) { return b ? "yes" : "no"; }

}  // namespace

bool print_node(const probes::Features& f) {
    auto plans = probes::plan_probes(f);
    std::printf("kernel          %s\n", f.kernel_release.c_str());
    std::printf("BTF             %s\n", f.btf ? "yes (/sys/kernel/btf/vmlinux)" : "no");
    std::printf("CAP_BPF         %s\n", yes_no(f.cap_bpf));
    std::printf("CAP_PERFMON     %s\n", yes_no(f.cap_perfmon));
    std::printf("CAP_SYS_ADMIN   %s\n", yes_no(f.cap_sys_admin));
    std::printf("tracefs         %s\n",
                f.tracefs ? "mounted" : "not mounted (not needed: iolens uses raw tracepoints)");
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
        if (p.available) std::printf("%-10s %-6s   (%s)\n", "", "", p.reason.c_str());
        for (const auto& d : p.degraded) std::printf("%-10s %-6s   degraded: %s\n", "", "", d.c_str());
        // Only the essential families decide whether record can run.
        if (p.spec->essential) all = all && p.available;
    }
    return all && f.can_trace() && f.ringbuf;
}

}  // namespace iolens::cli
