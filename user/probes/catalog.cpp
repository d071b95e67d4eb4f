#include "probes/catalog.h"

namespace iolens::probes {

namespace {

FamilyPlan plan(const Features& f, const std::string& family, const std::vector<std::string>& tps)
{
    FamilyPlan p{family, "", false, ""};
    std::vector<std::string> missing;
    for (const auto& tp : tps)
        if (!f.has_btf_tracepoint(tp))
            missing.push_back(tp);
    auto join = [&](const char* prefix) {
        std::string s;
        for (const auto& tp : tps)
            s += (s.empty() ? "" : ",") + std::string(prefix) + "/" + tp;
        return s;
    };
    if (f.btf && missing.empty()) {
        p.hook = join("tp_btf");
        p.available = true;
        p.reason = "BTF-typed raw tracepoints";
    } else if (!f.btf) {
        p.hook = join("raw_tp");
        p.available = false;
        p.reason = "no kernel BTF (/sys/kernel/btf/vmlinux): CO-RE cannot relocate the programs";
    } else {
        std::string m;
        for (const auto& tp : missing)
            m += (m.empty() ? "" : ", ") + tp;
        p.reason = "tracepoint(s) not in this kernel: " + m;
    }
    return p;
}

}  // namespace

std::vector<FamilyPlan> plan_probes(const Features& f)
{
    std::vector<FamilyPlan> plans;
    plans.push_back(plan(f, "process", {"sched_process_fork", "sched_process_exec", "sched_process_exit"}));
    plans.push_back(plan(f, "syscalls", {"sys_enter", "sys_exit"}));
    if (!f.task_storage && f.can_trace())
        for (auto& p : plans)
            if (p.family == "syscalls") {
                p.available = false;
                p.reason = "no task storage for tracing programs (kernel < 5.11)";
            }
    return plans;
}

}  // namespace iolens::probes
