#pragma once
// What each probe family needs from the kernel, and the hook `record` would
// choose for it here: the answer `iolens check` prints, derived from Features
// alone, without loading anything.
#include <string>
#include <vector>

#include "probes/features.h"

namespace iolens::probes {

struct FamilyPlan {
    std::string family;       // "process", "syscalls"
    std::string hook;         // e.g. "tp_btf/sys_enter,tp_btf/sys_exit"; empty if none
    bool available = false;
    std::string reason;       // why this hook, or why none
};

std::vector<FamilyPlan> plan_probes(const Features& features);

}  // namespace iolens::probes
