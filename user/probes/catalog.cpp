#include "probes/catalog.h"

#include <algorithm>

#include "bpf_objects.h"

namespace iolens::probes {

const std::vector<BpfObject>& bpf_objects()
{
    static const std::vector<BpfObject> objects = {
#define IOLENS_OBJECT_ROW(object, family, build) {#object, family, Variant::build},
        IOLENS_BPF_OBJECTS(IOLENS_OBJECT_ROW)
#undef IOLENS_OBJECT_ROW
    };
    return objects;
}

const std::vector<FamilySpec>& family_specs()
{
    static const std::vector<FamilySpec> specs = {
        {.name = "process",
         .provides = "follows the target through fork, exec and exit",
         .required = {"sched_process_fork", "sched_process_exec", "sched_process_exit"},
         .essential = true},
        {.name = "syscalls",
         .provides = "file syscalls: sizes, latencies, errors, files",
         .required = {"sys_enter", "sys_exit"},
         .essential = true},
        {.name = "pagecache",
         .provides = "page-cache hits and misses, readahead, mmap faults, evictions",
         .required = {"mm_filemap_add_to_page_cache", "mm_filemap_delete_from_page_cache"},
         .optional = {{"mm_filemap_fault", "major fault counts"},
                      {"page_cache_sync_ra", "synchronous readahead counts and bytes"},
                      {"page_cache_async_ra", "asynchronous readahead counts and bytes"}},
         .needs_folio = true},
        {.name = "blocking",
         .provides = "time blocked off CPU inside file syscalls",
         .required = {"sched_switch"},
         .has_raw_tp = false},
        {.name = "block",
         .provides = "block requests: latency, queue time, size, depth, submitter",
         .required = {"block_getrq", "block_rq_issue", "block_rq_complete"},
         .optional = {{"block_rq_insert", "queue time (insert to issue)"},
                      {"block_bio_frontmerge", "submitter of requests grown at the front by a merge"}},
         .signatures = {{"block_getrq", {1, 3}},
                        {"block_bio_frontmerge", {1, 3}},
                        {"block_rq_insert", {1, 2}},
                        {"block_rq_issue", {1, 2}}}},
    };
    return specs;
}

std::string object_name(const FamilySpec& spec, Variant v)
{
    for (const auto& o : bpf_objects())
        if (o.family == spec.name && o.build == v)
            return o.name;
    return "";
}

bool has_build(const FamilySpec& spec, Variant v)
{
    return !object_name(spec, v).empty();
}

bool has_builds(const FamilySpec& spec)
{
    return std::count_if(bpf_objects().begin(), bpf_objects().end(),
                         [&](const BpfObject& o) { return o.family == spec.name; }) > 1;
}

const char* variant_name(Variant v)
{
    switch (v) {
    case Variant::Direct: return "direct";
    case Variant::Standard: return "standard";
    case Variant::Legacy: return "legacy";
    }
    return "?";
}

std::vector<Variant> candidate_variants(const Features& f, const FamilySpec& spec, const std::string& force)
{
    const bool direct = has_build(spec, Variant::Direct), legacy = has_build(spec, Variant::Legacy);
    if (force == "legacy")
        return {legacy ? Variant::Legacy : Variant::Standard};
    if (force == "standard" || (force == "direct" && !direct))
        return {Variant::Standard};
    if (force == "direct")
        return {Variant::Direct};
    if (legacy && !f.task_storage)
        return {Variant::Legacy};
    std::vector<Variant> v;
    if (direct && f.kfunc_rdonly_cast)
        v.push_back(Variant::Direct);
    v.push_back(Variant::Standard);
    return v;
}

std::string unsupported_reason(const Features& f, const FamilySpec& spec)
{
    if (spec.needs_folio && f.btf && !f.folio)
        return "kernel before 5.16: its page-cache tracepoints pass pages, not folios (not supported)";
    return "";
}

const FamilySpec* find_family(const std::string& name)
{
    for (const auto& s : family_specs())
        if (s.name == name)
            return &s;
    return nullptr;
}

namespace {

std::string join(const char* prefix, const std::vector<std::string>& tps)
{
    std::string s;
    for (const auto& tp : tps)
        s += (s.empty() ? "" : ",") + std::string(prefix) + "/" + tp;
    return s;
}

FamilyPlan plan(const Features& f, const FamilySpec& spec)
{
    FamilyPlan p{spec.name, "", false, "", {}};
    std::vector<std::string> missing;
    for (const auto& tp : spec.required)
        if (!f.has_btf_tracepoint(tp))
            missing.push_back(tp);
    if (!f.btf) {
        p.reason = "no kernel BTF (/sys/kernel/btf/vmlinux): CO-RE cannot relocate the programs";
        return p;
    }
    if (auto why = unsupported_reason(f, spec); !why.empty()) {
        p.reason = why;
        return p;
    }
    if (!missing.empty()) {
        std::string m;
        for (const auto& tp : missing)
            m += (m.empty() ? "" : ", ") + tp;
        p.reason = "tracepoint(s) not in this kernel: " + m;
        return p;
    }
    std::vector<std::string> tps = spec.required;
    for (const auto& opt : spec.optional) {
        if (f.has_btf_tracepoint(opt.name))
            tps.push_back(opt.name);
        else
            p.degraded.push_back("no " + opt.name + ": " + opt.without + " unavailable");
    }
    p.hook = join("tp_btf", tps);
    if (has_builds(spec))
        p.hook += std::string(" [") + variant_name(candidate_variants(f, spec).front()) + "]";
    p.available = true;
    p.reason = spec.provides;
    return p;
}

}  // namespace

std::vector<FamilyPlan> plan_probes(const Features& f)
{
    std::vector<FamilyPlan> plans;
    for (const auto& spec : family_specs())
        plans.push_back(plan(f, spec));
    return plans;
}

}  // namespace iolens::probes
