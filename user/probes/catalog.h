#pragma once
// The probe families iolens has, what each needs from the kernel, and the hook
// `record` would choose for it here: defined once, used by the loader and by
// `iolens check` (which decides from Features alone, without loading).
#include <string>
#include <vector>

#include "probes/features.h"

namespace iolens::probes {

struct OptionalTracepoint {
    std::string name;
    std::string without;  // what is unavailable when the kernel lacks it
};

struct FamilySpec {
    std::string name;                       // "process", "syscalls", ...; also the BPF object's name
    std::string provides;                   // one line for `check`
    std::vector<std::string> required;      // tracepoints it cannot work without
    std::vector<OptionalTracepoint> optional;
    bool essential = false;                 // record fails without it
    bool has_raw_tp = true;                 // a raw_tp fallback exists (else tp_btf only)
};

const std::vector<FamilySpec>& family_specs();
const FamilySpec* find_family(const std::string& name);

struct FamilyPlan {
    std::string family;
    std::string hook;          // e.g. "tp_btf/sys_enter,tp_btf/sys_exit"; empty if none
    bool available = false;
    std::string reason;        // why this hook, or why none
    std::vector<std::string> degraded;  // optional tracepoints missing, with what is lost
};

std::vector<FamilyPlan> plan_probes(const Features& features);

}  // namespace iolens::probes
