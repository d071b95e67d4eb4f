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

// Builds of one family's BPF source for different kernels (bpf/common.bpf.h
// and bpf/file.bpf.h explain them).
enum class Variant {
    Direct,    // 6.2+: file and inode fields as direct loads (bpf_rdonly_cast)
    Standard,  // 5.11+: per-thread state in task storage
    Legacy,    // 5.8+: per-thread state in an LRU hash, no BTF task pointer
};
// "direct", "standard", "legacy".
const char* variant_name(Variant v);

// One BPF object (skeleton): a build of a family's source. The list is
// CMakeLists.txt's IOLENS_BPF_OBJECTS, which builds them.
struct BpfObject {
    const char* name;    // the skeleton is <name>_bpf
    const char* family;  // FamilySpec::name
    Variant build;
};
const std::vector<BpfObject>& bpf_objects();

// A tracepoint whose prototype changed: its programs read their arguments
// where the kernel's prototype has them (IOLENS_TP_ARITY, bpf/common.bpf.h).
struct Signature {
    std::string tracepoint;
    std::vector<int> arities;  // argument counts the programs handle
};

struct FamilySpec {
    std::string name;                       // "process", "syscalls", ...
    std::string provides;                   // one line for `check`
    std::vector<std::string> required;      // tracepoints it cannot work without
    std::vector<OptionalTracepoint> optional;
    bool essential = false;                 // record fails without it
    bool has_raw_tp = true;                 // a raw_tp fallback exists (else tp_btf only)
    bool needs_folio = false;               // reads struct folio (page-cache tracepoints, 5.16+)
    std::vector<Signature> signatures = {};  // tracepoints with more than one prototype
};

const std::vector<FamilySpec>& family_specs();
const FamilySpec* find_family(const std::string& name);
// The builds of a family (bpf_objects()), and whether it has more than one
// (then `check` and the probe statuses name the one chosen).
bool has_build(const FamilySpec& spec, Variant v);
bool has_builds(const FamilySpec& spec);

// The builds worth trying for a family on this kernel, best first, or only
// the forced one ("direct", "standard", "legacy"; empty: no forcing). All
// families that keep per-thread state must agree on where it lives, so the
// choice between task storage and the legacy hash depends on the kernel
// alone, never on another family's load.
std::vector<Variant> candidate_variants(const Features& features, const FamilySpec& spec,
                                        const std::string& force_variant = "");
// Why this kernel cannot run the family at all, whatever the hook (before
// trying to load it), or empty.
std::string unsupported_reason(const Features& features, const FamilySpec& spec);
// The BPF object (skeleton) of that build of the family, or empty if none.
std::string object_name(const FamilySpec& spec, Variant v);

struct FamilyPlan {
    std::string family;
    std::string hook;          // e.g. "tp_btf/sys_enter,tp_btf/sys_exit"; empty if none
    bool available = false;
    std::string reason;        // why this hook, or why none
    std::vector<std::string> degraded;  // optional tracepoints missing, with what is lost
};

std::vector<FamilyPlan> plan_probes(const Features& features);

}  // namespace iolens::probes
