#pragma once
// The probe families iolens has, what each needs from the kernel, and the
// probe plan: for each family, from Features alone, the builds and hook kinds
// worth trying (best first), the tracepoints whose programs load and the
// prototypes they are told, what is degraded, or why the family cannot run
// here. `iolens check` prints the plan and ProbeSet::load() tries its
// attempts in order, so the two cannot disagree.
#include <string>
#include <vector>

#include "probes/features.h"

namespace iolens::probes {

// Builds of one family's BPF source for different kernels (bpf/common.bpf.h
// and bpf/file.bpf.h explain them).
enum class Variant {
    Direct,    // 6.2+: file and inode fields as direct loads (bpf_rdonly_cast)
    Standard,  // 5.11+: per-thread state in task storage
    Legacy,    // 5.8+: per-thread state in an LRU hash, no BTF task pointer
};
// "direct", "standard", "legacy".
const char* variant_name(Variant v);

// Kinds of attach point; every family has tp_btf programs, most raw_tp too.
enum class Hook { TpBtf, RawTp };
// "tp_btf", "raw_tp": also the programs' section prefix.
const char* hook_prefix(Hook h);

// One BPF object (skeleton): a build of a family's source. The list is
// CMakeLists.txt's IOLENS_BPF_OBJECTS, which builds them.
struct BpfObject {
    const char* name;    // the skeleton is <name>_bpf
    const char* family;  // FamilySpec::name
    Variant build;
};
const std::vector<BpfObject>& bpf_objects();

// A tracepoint a family's programs attach to.
struct TracepointSpec {
    std::string name;
    bool required = false;  // the family cannot work without it
    std::string without;    // what is unavailable without it ("": nothing the report shows)
    // Argument counts of the prototypes its programs handle, where the
    // prototype changed between kernels (IOLENS_TP_ARITY, bpf/common.bpf.h);
    // empty: one prototype everywhere.
    std::vector<int> arities = {};
    bool in_legacy = true;  // the Legacy build has programs for it
    // Not loaded (and not required) where the kernel has this tracepoint,
    // whose program does the same work better.
    std::string unless = {};
};

struct FamilySpec {
    std::string name;                         // "process", "syscalls", ...
    std::string provides;                     // one line for `check`
    std::vector<TracepointSpec> tracepoints;  // in the order their programs attach
    bool essential = false;                   // record fails without it
    bool has_raw_tp = true;                   // a raw_tp fallback exists (else tp_btf only)
    bool needs_folio = false;                 // reads struct folio (page-cache tracepoints, 5.16+)
    // Said after "no program fits this kernel's prototype of ...": what the
    // older prototypes lack.
    std::string unfit_hint = {};
};

const std::vector<FamilySpec>& family_specs();
const FamilySpec* find_family(const std::string& name);
// Whether the family has that build (bpf_objects()), and more than one (then
// `check` and the probe statuses name the one chosen).
bool has_build(const FamilySpec& spec, Variant v);
bool has_builds(const FamilySpec& spec);
// The BPF object (skeleton) of that build of the family, or empty if none.
std::string object_name(const FamilySpec& spec, Variant v);

// The builds worth trying for a family on this kernel, best first, or only
// the forced one ("direct", "standard", "legacy"; empty: no forcing). All
// families that keep per-thread state must agree on where it lives, so the
// choice between task storage and the legacy hash depends on the kernel
// alone, never on another family's load.
std::vector<Variant> candidate_variants(const Features& features, const FamilySpec& spec,
                                        const std::string& force_variant = "");

// The prototype a tracepoint has on this kernel, for its programs.
struct Arity {
    std::string tracepoint;
    int arity;  // set as iolens_arity_<tracepoint> before load
};

// One way to load a family: a build, a hook kind, and what its programs need.
struct Attempt {
    Variant variant = Variant::Standard;
    Hook hook = Hook::TpBtf;
    std::string object;                    // the BPF object (skeleton) of that build
    std::vector<std::string> tracepoints;  // whose programs of that hook kind load, in attach order
    std::vector<Arity> arities;            // for those whose prototype changed between kernels
};

struct FamilyPlan {
    const FamilySpec* spec = nullptr;
    std::string family;
    bool available = false;             // this kernel can run the family
    std::string hook;                   // the first attempt's hooks_text(); empty if none
    std::string reason;                 // what it provides, or why it cannot run here
    std::vector<std::string> degraded;  // optional tracepoints missing, with what is lost
    std::vector<Attempt> attempts;      // best first; none if unavailable or forcing left none
};

// Forcing, as `record --force-hook/--force-variant` asks (tests run the
// fallbacks on kernels that have the preferred hooks).
struct PlanOptions {
    std::string force_hook;     // "tp_btf" or "raw_tp": only that hook kind
    std::string force_variant;  // "direct", "standard" or "legacy": only that build
};

// "tp_btf/sys_enter,tp_btf/sys_exit [direct]": an attempt's hooks, as `check`
// and the probe statuses show them.
std::string hooks_text(const FamilySpec& spec, const Attempt& attempt);

FamilyPlan plan_family(const Features& features, const FamilySpec& spec, const PlanOptions& options = {});
// One plan per family, in family_specs() order.
std::vector<FamilyPlan> plan_probes(const Features& features, const PlanOptions& options = {});

}  // namespace iolens::probes
