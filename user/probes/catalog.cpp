#include "probes/catalog.h"

#include <algorithm>

#include "bpf_objects.h"

namespace iolens::probes {

const std::vector<BpfObject>& bpf_objects() {
    static const std::vector<BpfObject> objects = {
#define IOLENS_OBJECT_ROW(object, family, build) {#object, family, Variant::build},
        IOLENS_BPF_OBJECTS(IOLENS_OBJECT_ROW)
#undef IOLENS_OBJECT_ROW
    };
    return objects;
}

const std::vector<FamilySpec>& family_specs() {
    // Tracepoints in the order of their programs in bpf/<source>.bpf.c.
    static const std::vector<FamilySpec> specs = {
        {.name = "process",
         .provides = "follows the target through fork, exec and exit",
         .tracepoints = {{.name = "sched_process_fork", .required = true},
                         {.name = "sched_process_exec", .required = true},
                         {.name = "sched_process_exit", .required = true},
                         {.name = "cgroup_attach_task",
                          .without = "--cgroup: processes moved into the group after attach (members, and "
                                     "processes forked into it, are still followed)"}},
         .essential = true},
        {.name = "syscalls",
         .provides = "file syscalls: sizes, latencies, errors, files",
         .tracepoints = {{.name = "sys_enter", .required = true},
                         {.name = "sys_exit", .required = true},
                         // A thread's last batch of records leaves when it exits
                         // (else at the end); the legacy build has no batches.
                         {.name = "sched_process_exit", .in_legacy = false}},
         .essential = true},
        {.name = "pagecache",
         .provides = "page-cache hits and misses, readahead, mmap faults, evictions",
         .tracepoints = {{.name = "mm_filemap_add_to_page_cache", .required = true},
                         {.name = "mm_filemap_delete_from_page_cache", .required = true},
                         {.name = "mm_filemap_fault", .without = "major fault counts"},
                         {.name = "page_cache_sync_ra", .without = "synchronous readahead counts and bytes"},
                         {.name = "page_cache_async_ra",
                          .without = "asynchronous readahead counts and bytes"},
                         // A thread's open fault and eviction runs leave when it
                         // exits (else at the end); the legacy build has no runs.
                         {.name = "sched_process_exit", .in_legacy = false}},
         .needs_folio = true},
        {.name = "blocking",
         .provides = "time blocked off CPU inside file syscalls",
         .tracepoints = {{.name = "sched_switch", .required = true}},
         .has_raw_tp = false},
        {.name = "block",
         .provides = "block requests: latency, queue time, size, depth, submitter",
         // 5.11 changed four prototypes (bpf/block.bpf.c). 6.5+ names a
         // request's submitter at block_io_start; before it, the submitter of
         // its first bio is matched by sector (getrq, frontmerge).
         .tracepoints =
             {{.name = "block_getrq", .required = true, .arities = {1, 3}, .unless = "block_io_start"},
              {.name = "block_bio_frontmerge",
               .without = "submitter of requests grown at the front by a merge",
               .arities = {1, 3},
               .unless = "block_io_start"},
              {.name = "block_io_start"},
              {.name = "block_rq_insert", .without = "queue time (insert to issue)", .arities = {1, 2}},
              {.name = "block_rq_issue", .required = true, .arities = {1, 2}},
              {.name = "block_rq_complete", .required = true}}},
        {.name = "io_uring",
         .provides = "io_uring read, write and fsync requests: file, offset, bytes, latency, io-wq",
         // io_uring_submit_req is 6.4+; io_uring_submit_sqe before it passes
         // the request only from 6.0 on (2 arguments; 5.10 has 5, 5.15 7:
         // no request, so no file or offset). complete has 7 arguments up to
         // 6.12, 3 (the CQE whole) later.
         .tracepoints = {{.name = "io_uring_submit_req"},
                         {.name = "io_uring_submit_sqe",
                          .required = true,
                          .arities = {2},
                          .unless = "io_uring_submit_req"},
                         {.name = "io_uring_complete", .required = true, .arities = {3, 7}},
                         {.name = "io_uring_queue_async_work",
                          .without = "which requests went to io-wq workers"}},
         .has_raw_tp = false,
         .unfit_hint = "before 6.0 io_uring_complete does not pass the request, so a completion cannot be "
                       "matched to its submission (user_data is the application's, not unique)"},
    };
    return specs;
}

std::string object_name(const FamilySpec& spec, Variant v) {
    for (const auto& o : bpf_objects())
        if (o.family == spec.name && o.build == v) return o.name;
    return "";
}

bool has_build(const FamilySpec& spec, Variant v) { return !object_name(spec, v).empty(); }

bool has_builds(const FamilySpec& spec) {
    return std::count_if(bpf_objects().begin(), bpf_objects().end(),
                         [&](const BpfObject& o) { return o.family == spec.name; }) > 1;
}

const char* variant_name(Variant v) {
    switch (v) {
        case Variant::Direct:
            return "direct";
        case Variant::Standard:
            return "standard";
        case Variant::Legacy:
            return "legacy";
    }
    return "?";
}

std::vector<Variant> candidate_variants(const Features& f, const FamilySpec& spec, const std::string& force) {
    const bool direct = has_build(spec, Variant::Direct), legacy = has_build(spec, Variant::Legacy);
    if (force == "legacy") return {legacy ? Variant::Legacy : Variant::Standard};
    if (force == "standard" || (force == "direct" && !direct)) return {Variant::Standard};
    if (force == "direct") return {Variant::Direct};
    if (legacy && !f.task_storage) return {Variant::Legacy};
    std::vector<Variant> v;
    if (direct && f.kfunc_rdonly_cast) v.push_back(Variant::Direct);
    v.push_back(Variant::Standard);
    return v;
}

const char* hook_prefix(Hook h) { return h == Hook::TpBtf ? "tp_btf" : "raw_tp"; }

const FamilySpec* find_family(const std::string& name) {
    for (const auto& s : family_specs())
        if (s.name == name) return &s;
    return nullptr;
}

std::string hooks_text(const FamilySpec& spec, const Attempt& attempt) {
    std::string s;
    for (const auto& tp : attempt.tracepoints)
        s += (s.empty() ? "" : ",") + std::string(hook_prefix(attempt.hook)) + "/" + tp;
    if (has_builds(spec)) s += std::string(" [") + variant_name(attempt.variant) + "]";
    return s;
}

namespace {

std::string join(const std::vector<std::string>& items) {
    std::string s;
    for (const auto& item : items) s += (s.empty() ? "" : ", ") + item;
    return s;
}

// The hook kinds worth trying, best first (or only the forced one). tp_btf
// needs every required tracepoint in the BTF, which a plan with attempts has.
std::vector<Hook> candidate_hooks(const FamilySpec& spec, const std::string& force_hook) {
    std::vector<Hook> hooks;
    if (force_hook != "raw_tp") hooks.push_back(Hook::TpBtf);
    if (spec.has_raw_tp && force_hook != "tp_btf") hooks.push_back(Hook::RawTp);
    return hooks;
}

// Whether the kernel has the tracepoint that does this one's work better.
bool superseded(const Features& f, const TracepointSpec& tp) {
    return !tp.unless.empty() && f.has_btf_tracepoint(tp.unless);
}

// Whether the tracepoint's programs fit this kernel's prototype of it.
bool fits(const Features& f, const TracepointSpec& tp) {
    if (tp.arities.empty()) return true;
    const auto arity = f.tracepoint_arity(tp.name);
    return arity && std::find(tp.arities.begin(), tp.arities.end(), *arity) != tp.arities.end();
}

std::string prototype_text(const Features& f, const TracepointSpec& tp) {
    const auto arity = f.tracepoint_arity(tp.name);
    return tp.name + " (" + (arity ? std::to_string(*arity) + " arguments" : "arguments unknown") + ")";
}

// Why this kernel cannot run the family at all, whatever the hook, or empty.
std::string unavailable_reason(const Features& f, const FamilySpec& spec) {
    if (!f.btf) return "no kernel BTF (/sys/kernel/btf/vmlinux): CO-RE cannot relocate the programs";
    if (spec.needs_folio && !f.folio)
        return "kernel before 5.16: its page-cache tracepoints pass pages, not folios (not supported)";
    std::vector<std::string> missing, unfit;
    for (const auto& tp : spec.tracepoints) {
        if (superseded(f, tp)) continue;
        if (tp.required && !f.has_btf_tracepoint(tp.name))
            missing.push_back(tp.name);
        else if (tp.required && !fits(f, tp))
            unfit.push_back(prototype_text(f, tp));
    }
    if (!missing.empty()) return "tracepoint(s) not in this kernel: " + join(missing);
    if (!unfit.empty())
        return "no program fits this kernel's prototype of " + join(unfit) +
               (spec.unfit_hint.empty() ? "" : ": " + spec.unfit_hint);
    return "";
}

// The tracepoints a build loads here (the optional ones only where the
// kernel has them with a prototype the programs handle), with their arities.
Attempt attempt_for(const Features& f, const FamilySpec& spec, Variant variant, Hook hook) {
    Attempt a{variant, hook, object_name(spec, variant), {}, {}};
    for (const auto& tp : spec.tracepoints) {
        if ((variant == Variant::Legacy && !tp.in_legacy) || !f.has_btf_tracepoint(tp.name) || !fits(f, tp) ||
            superseded(f, tp))
            continue;
        a.tracepoints.push_back(tp.name);
        if (!tp.arities.empty()) a.arities.push_back({tp.name, *f.tracepoint_arity(tp.name)});
    }
    return a;
}

// What the optional tracepoints this kernel lacks (or whose prototype the
// programs do not handle) take away.
std::vector<std::string> degraded(const Features& f, const FamilySpec& spec) {
    std::vector<std::string> out;
    for (const auto& tp : spec.tracepoints) {
        if (tp.required || tp.without.empty() || superseded(f, tp)) continue;
        if (!f.has_btf_tracepoint(tp.name))
            out.push_back("no " + tp.name + ": " + tp.without + " unavailable");
        else if (!fits(f, tp))
            out.push_back("no program fits " + prototype_text(f, tp) + ": " + tp.without + " unavailable");
    }
    return out;
}

}  // namespace

FamilyPlan plan_family(const Features& f, const FamilySpec& spec, const PlanOptions& options) {
    FamilyPlan p{&spec, spec.name, false, "", "", {}, {}};
    p.reason = unavailable_reason(f, spec);
    if (!p.reason.empty()) return p;
    p.available = true;
    p.reason = spec.provides;
    p.degraded = degraded(f, spec);
    for (Variant variant : candidate_variants(f, spec, options.force_variant))
        for (Hook hook : candidate_hooks(spec, options.force_hook))
            p.attempts.push_back(attempt_for(f, spec, variant, hook));
    if (!p.attempts.empty()) p.hook = hooks_text(spec, p.attempts.front());
    return p;
}

std::vector<FamilyPlan> plan_probes(const Features& f, const PlanOptions& options) {
    std::vector<FamilyPlan> plans;
    for (const auto& spec : family_specs()) plans.push_back(plan_family(f, spec, options));
    return plans;
}

}  // namespace iolens::probes
