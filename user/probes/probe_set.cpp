#include "probes/probe_set.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <malloc.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstring>
#include <algorithm>
#include <functional>

#include "bpf_objects.h"
#include "bpf_skeletons.h"
#include "iolens/abi.h"
#include "probes/catalog.h"
#include "util/errno_text.h"
#include "util/fd.h"

namespace iolens::probes {

namespace {

int libbpf_log(enum libbpf_print_level level, const char* fmt, va_list args) {
    // Sized to the message: a verifier log runs to many kilobytes, and its
    // last lines (the rejection) are the ones that matter.
    va_list copy;
    va_copy(copy, args);
    int len = vsnprintf(nullptr, 0, fmt, copy);
    va_end(copy);
    if (len < 0) return 0;
    std::string buf(static_cast<size_t>(len) + 1, '\0');
    vsnprintf(buf.data(), buf.size(), fmt, args);
    buf.resize(static_cast<size_t>(len));
    while (!buf.empty() && buf.back() == '\n') buf.pop_back();
    if (level == LIBBPF_WARN)
        spdlog::debug("libbpf: {}", buf);  // load failures are explained by us, at warn or error
    else
        spdlog::trace("libbpf: {}", buf);
    return 0;
}

// A skeleton whose type has been erased: its owner and its bpf_object.
struct SkeletonHandle {
    std::unique_ptr<void, void (*)(void*)> owner{nullptr, nullptr};
    bpf_object* obj = nullptr;
};

// Opens one family's skeleton and sets its tunables (all families share the
// rodata declared in bpf/common.bpf.h).
template <typename Skel, Skel* (*Open)(), void (*Destroy)(Skel*)>
SkeletonHandle open_skeleton(uint32_t wakeup_shift) {
    Skel* s = Open();
    if (!s) return {};
    s->rodata->iolens_wakeup_shift = wakeup_shift;
    return SkeletonHandle{{s, [](void* p) { Destroy(static_cast<Skel*>(p)); }}, s->obj};
}

using Opener = SkeletonHandle (*)(uint32_t);

// The skeleton of each BPF object (CMakeLists.txt's IOLENS_BPF_OBJECTS).
const std::pair<const char*, Opener> kOpeners[] = {
#define IOLENS_OPENER_ROW(object, family, build) \
    {#object, open_skeleton<object##_bpf, object##_bpf__open, object##_bpf__destroy>},
    IOLENS_BPF_OBJECTS(IOLENS_OPENER_ROW)
#undef IOLENS_OPENER_ROW
};

// The skeleton of a BPF object, by object name (catalog's object_name()).
Opener opener_for(const std::string& object) {
    for (const auto& [name, open] : kOpeners)
        if (object == name) return open;
    return nullptr;
}

// While the BPF objects load, malloc keeps what is freed and serves large
// blocks from its heap. libbpf reads and parses the kernel's BTF (5 MB here)
// for every object it loads, into new buffers; by default malloc maps each
// one afresh (or grows its heap for it) and every page of it is faulted in
// while the kernel copies the BTF into it, 4 KiB a read: on a VM a fault is
// dear, and the 6 objects' loads took ~250 ms more (attach 0.55-0.65 s ->
// 0.33-0.39 s with the heap kept, side by side). Setting a threshold turns
// malloc's adaptive ones off for good, so afterwards they are left about
// where the adaptive ones stood after those loads (mmap from 8 MiB, trim
// past 16 MiB: twice that, as glibc does), so that the report built after
// the capture keeps memory as before, and what the loads freed goes back.
// 32 MiB: the most an older glibc accepts for M_MMAP_THRESHOLD.
class HeapForLoading {
public:
    HeapForLoading() {
        mallopt(M_MMAP_THRESHOLD, 32 << 20);
        mallopt(M_TRIM_THRESHOLD, 256 << 20);
    }
    ~HeapForLoading() {
        mallopt(M_TRIM_THRESHOLD, 16 << 20);
        mallopt(M_MMAP_THRESHOLD, 8 << 20);
        malloc_trim(0);
    }
    HeapForLoading(const HeapForLoading&) = delete;
    HeapForLoading& operator=(const HeapForLoading&) = delete;
};

// Section "tp_btf/sys_enter" -> ("tp_btf", "sys_enter").
std::pair<std::string, std::string> split_section(const char* sec) {
    std::string s = sec ? sec : "";
    auto slash = s.find('/');
    if (slash == std::string::npos) return {s, ""};
    return {s.substr(0, slash), s.substr(slash + 1)};
}

// Sets the const volatile __u32 `name` of the object's read-only data (between
// open and load); false if the object has no such variable.
template <typename T>
bool set_rodata(bpf_object* obj, const std::string& name, T value) {
    const struct btf* btf = bpf_object__btf(obj);
    bpf_map* rodata = nullptr;
    bpf_map* map;
    bpf_object__for_each_map(map, obj) {
        const std::string n = bpf_map__name(map);
        if (n.size() >= 7 && n.compare(n.size() - 7, 7, ".rodata") == 0) rodata = map;
    }
    const int sec_id = btf ? btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC) : -1;
    if (!rodata || sec_id < 0) return false;
    size_t size = 0;
    const auto* initial = static_cast<const char*>(bpf_map__initial_value(rodata, &size));
    const struct btf_type* sec = btf__type_by_id(btf, static_cast<uint32_t>(sec_id));
    const struct btf_var_secinfo* vars = btf_var_secinfos(sec);
    for (unsigned i = 0; initial && i < btf_vlen(sec); i++) {
        const struct btf_type* var = btf__type_by_id(btf, vars[i].type);
        if (name != btf__name_by_offset(btf, var->name_off) || vars[i].size != sizeof(value) ||
            vars[i].offset + sizeof(value) > size)
            continue;
        std::string data(initial, size);
        std::memcpy(data.data() + vars[i].offset, &value, sizeof(value));
        return bpf_map__set_initial_value(rodata, data.data(), data.size()) == 0;
    }
    return false;
}

struct LinkDeleter {
    void operator()(bpf_link* l) const noexcept { bpf_link__destroy(l); }
};

}  // namespace

struct ProbeSet::Family {
    const FamilySpec* spec = nullptr;
    SkeletonHandle skeleton;  // declared before links: destroyed after them
    Attempt attempt;          // the plan's attempt that loaded
    std::vector<std::unique_ptr<bpf_link, LinkDeleter>> links;
    // Task iterators that send what the programs still hold in per-thread
    // state (bpf/call_batch.bpf.h), run once the other programs are detached.
    std::vector<std::unique_ptr<bpf_link, LinkDeleter>> drains;

    std::string hooks() const { return hooks_text(*spec, attempt); }
};

const char* counter_name(int counter) {
    for (const auto& c : kCounters)
        if (c.id == counter) return c.name;
    return "unknown";
}

namespace {

const char* const kErrorHint = "run `iolens check` to see what this kernel lacks";

// Opens the attempt's BPF object and picks its programs: those of the
// attempt's hook kind for its tracepoints (told their prototypes), and the
// task iterators, which run on demand whatever the hook kind.
Result<std::unique_ptr<ProbeSet::Family>> open_attempt(const FamilySpec& spec, const Attempt& attempt,
                                                       const ProbeOptions& options) {
    const uint32_t wakeup_shift = options.wakeup_shift;
    Opener open = opener_for(attempt.object);
    if (!open) return make_error("no BPF object " + attempt.object + " for probe family " + spec.name);
    auto fam = std::make_unique<ProbeSet::Family>();
    fam->spec = &spec;
    fam->attempt = attempt;
    fam->skeleton = open(wakeup_shift);
    if (!fam->skeleton.obj) return errno_error("cannot open the " + attempt.object + " BPF object");
    for (const auto& a : attempt.arities)
        if (!set_rodata<uint32_t>(fam->skeleton.obj, "iolens_arity_" + a.tracepoint,
                                  static_cast<uint32_t>(a.arity)))
            return make_error("the " + attempt.object + " BPF object has no iolens_arity_" + a.tracepoint);
    // --cgroup: the process family follows membership of that cgroup v2 group.
    if (options.target_cgroup && spec.name == std::string("process") &&
        !set_rodata<uint64_t>(fam->skeleton.obj, "iolens_target_cgroup", options.target_cgroup))
        return make_error("the " + attempt.object + " BPF object has no iolens_target_cgroup");
    // --stacks: the syscall family sends user stacks (docs/call-sites.md);
    // without it, its map of (thread, file) pairs seen takes no memory.
    if (spec.name == std::string("syscalls")) {
        const auto& st = options.stacks;
        if (st.enabled && !(set_rodata<uint32_t>(fam->skeleton.obj, "iolens_stacks", 1) &&
                            set_rodata<uint32_t>(fam->skeleton.obj, "iolens_stack_first", st.first ? 1 : 0) &&
                            set_rodata<uint32_t>(fam->skeleton.obj, "iolens_stack_period", st.period)))
            return make_error("the " + attempt.object + " BPF object has no iolens_stacks");
        if (bpf_map* seen = bpf_object__find_map_by_name(fam->skeleton.obj, "iolens_stack_seen"))
            bpf_map__set_max_entries(seen, st.enabled && st.first ? 16384 : 1);
        if (bpf_map* ra = bpf_object__find_map_by_name(fam->skeleton.obj, "iolens_stack_ra"))
            bpf_map__set_max_entries(ra, st.enabled && st.first ? 8192 : 1);
    }
    const auto& tps = attempt.tracepoints;
    std::vector<std::string> found;
    bpf_program* prog;
    bpf_object__for_each_program(prog, fam->skeleton.obj) {
        auto [kind, tp] = split_section(bpf_program__section_name(prog));
        const bool wanted =
            kind == hook_prefix(attempt.hook) && std::find(tps.begin(), tps.end(), tp) != tps.end();
        bpf_program__set_autoload(prog, wanted || kind == "iter");
        if (wanted) found.push_back(tp);
    }
    for (const auto& tp : tps)
        if (std::find(found.begin(), found.end(), tp) == found.end())
            return make_error("the " + attempt.object + " BPF object has no " + hook_prefix(attempt.hook) +
                              " program for " + tp);
    return fam;
}

// Sizes the maps this object creates and hands it those an earlier family
// created (`shared`).
void prepare_maps(bpf_object* obj, const std::map<std::string, int>& shared, uint32_t tracked_slots,
                  uint64_t ringbuf_bytes) {
    bpf_map* map;
    bpf_object__for_each_map(map, obj) {
        const std::string name = bpf_map__name(map);
        if (auto it = shared.find(name); it != shared.end())
            bpf_map__reuse_fd(map, it->second);
        else if (name == "iolens_tracked")
            bpf_map__set_max_entries(map, tracked_slots);
        else if (name == "iolens_events")
            bpf_map__set_max_entries(map, static_cast<uint32_t>(ringbuf_bytes));
    }
}

// Adds the named maps of a loaded object (not .rodata/.bss) to `shared`.
void publish_maps(bpf_object* obj, std::map<std::string, int>& shared) {
    bpf_map* map;
    bpf_object__for_each_map(map, obj) {
        const std::string name = bpf_map__name(map);
        // iolens_runs counts one family's runs: each object keeps its own.
        if (name.find('.') == std::string::npos && name != "iolens_runs")
            shared.emplace(name, bpf_map__fd(map));
    }
}

// Loads one family: the plan's attempts in order, the first that loads wins.
// Shared maps already created by an earlier family are reused; the maps this
// family creates are added to `shared`.
Result<std::unique_ptr<ProbeSet::Family>> load_family(const FamilyPlan& plan, const Features& features,
                                                      const ProbeOptions& options,
                                                      std::map<std::string, int>& shared) {
    const auto tracked_slots = static_cast<uint32_t>(TrackedSet::slots_for(features.pid_max));
    std::string errors;
    for (const auto& attempt : plan.attempts) {
        auto fam = open_attempt(*plan.spec, attempt, options);
        if (!fam) return fam.error();
        prepare_maps(fam.value()->skeleton.obj, shared, tracked_slots, options.ringbuf_bytes);
        if (int err = bpf_object__load(fam.value()->skeleton.obj); err != 0) {
            const std::string what = attempt.object + " " + hook_prefix(attempt.hook);
            errors += (errors.empty() ? "" : "; ") + what + ": " + errno_text(err);
            spdlog::debug("{} probes: {} failed to load: {}", plan.family, what, errno_text(err));
            continue;
        }
        publish_maps(fam.value()->skeleton.obj, shared);
        spdlog::debug("{} probes loaded: {}", plan.family, fam.value()->hooks());
        for (const auto& d : plan.degraded) spdlog::debug("{} probes: {}", plan.family, d);
        return fam;
    }
    if (errors.empty()) errors = "no usable hook on this kernel";
    return make_error("cannot load the " + plan.family + " BPF programs (" + errors + "): " + kErrorHint);
}

}  // namespace

Result<std::unique_ptr<ProbeSet>> ProbeSet::load(const Features& features, const ProbeOptions& options) {
    libbpf_set_print(libbpf_log);
    const HeapForLoading heap;
    std::unique_ptr<ProbeSet> set(new ProbeSet());
    // The process family comes first (family_specs order) and creates the
    // shared maps; every other family reuses them.
    for (const auto& plan : plan_probes(features, {options.force_hook, options.force_variant})) {
        if (!plan.available && plan.spec->essential)
            return make_error("cannot load the " + plan.family + " BPF programs (" + plan.reason +
                              "): " + kErrorHint);
        // A family the plan rules out is skipped with the plan's reason.
        auto fam = plan.available ? load_family(plan, features, options, set->shared_maps_)
                                  : Result<std::unique_ptr<Family>>(make_error(plan.reason));
        if (!fam) {
            if (plan.spec->essential) return fam.error();
            spdlog::warn("{}: {}", plan.family, fam.error().message);
            set->statuses_.push_back({plan.family, "", false, fam.error().message});
            continue;
        }
        std::string reason = plan.reason;
        for (const auto& d : plan.degraded) reason += "; " + d;
        set->statuses_.push_back({plan.family, fam.value()->hooks(), false, reason});
        set->families_.push_back(std::move(fam.value()));
    }
    const auto tracked_slots = static_cast<uint32_t>(TrackedSet::slots_for(features.pid_max));
    if (auto r = set->tracked_.map(set->shared_maps_.at("iolens_tracked"), tracked_slots); !r)
        return r.error();
    spdlog::debug("tracked-pid set {} slots (pid_max {}); ring buffer {} MiB", tracked_slots,
                  features.pid_max, options.ringbuf_bytes >> 20);
    return set;
}

ProbeSet::~ProbeSet() {
    // Links before the objects they attach (Family's member order does that),
    // and every family before the shared maps' owner, the first one.
    while (!families_.empty()) families_.pop_back();
}

Result<void> ProbeSet::attach() {
    for (auto& fam : families_) {
        auto status = std::find_if(statuses_.begin(), statuses_.end(), [&](const recording::ProbeStatus& s) {
            return s.name == fam->spec->name;
        });
        bpf_program* prog;
        std::string failure;
        bpf_object__for_each_program(prog, fam->skeleton.obj) {
            if (!bpf_program__autoload(prog) || !failure.empty()) continue;
            bpf_link* link = bpf_program__attach(prog);
            if (!link) {
                failure = std::string(bpf_program__section_name(prog)) + ": " + errno_text(errno);
                continue;
            }
            const bool drain = split_section(bpf_program__section_name(prog)).first == "iter";
            (drain ? fam->drains : fam->links).emplace_back(link);
        }
        if (!failure.empty()) {
            fam->links.clear();
            fam->drains.clear();
            status->reason = "attach failed: " + failure;
            if (fam->spec->essential)
                return make_error("cannot attach the " + fam->spec->name + " probes: " + failure);
            spdlog::warn("{} probes not attached: {}", fam->spec->name, failure);
            continue;
        }
        status->attached = true;
    }
    return {};
}

void ProbeSet::detach() {
    for (auto& fam : families_) fam->links.clear();
    // Reading a task iterator runs its program over every task: here it
    // copies each thread's unsent records into the ring buffer. Records it
    // cannot send stay counted as produced and show up as undelivered.
    for (auto& fam : families_) {
        for (auto& link : fam->drains) {
            const UniqueFd fd(bpf_iter_create(bpf_link__fd(link.get())));
            if (!fd) {
                spdlog::warn("{} probes: cannot run the drain iterator: {}", fam->spec->name,
                             errno_text(errno));
                continue;
            }
            char buf[256];
            while (read(fd.get(), buf, sizeof buf) > 0) {
            }
        }
        fam->drains.clear();
    }
}

int ProbeSet::ringbuf_fd() const { return shared_maps_.at("iolens_events"); }

int ProbeSet::map_fd(const std::string& name) const {
    auto it = shared_maps_.find(name);
    return it == shared_maps_.end() ? -1 : it->second;
}

std::map<std::string, uint64_t> ProbeSet::read_counters() const {
    std::map<std::string, uint64_t> out;
    const int ncpu = libbpf_num_possible_cpus();
    const int fd = shared_maps_.at("iolens_counters");
    std::vector<uint64_t> values(ncpu > 0 ? ncpu : 1);
    for (const auto& c : kCounters) {
        const auto key = static_cast<uint32_t>(c.id);
        uint64_t sum = 0;
        if (bpf_map_lookup_elem(fd, &key, values.data()) == 0)
            for (uint64_t v : values) sum += v;
        out[c.name] = sum;
    }
    return out;
}

Result<ObjectContents> describe_object(const std::string& object) {
    Opener open = opener_for(object);
    if (!open) return make_error("no BPF object " + object);
    SkeletonHandle skeleton = open(0);
    if (!skeleton.obj) return errno_error("cannot open the " + object + " BPF object");
    ObjectContents out;
    bpf_program* prog;
    bpf_object__for_each_program(prog, skeleton.obj)
        out.programs.push_back(split_section(bpf_program__section_name(prog)));
    const struct btf* btf = bpf_object__btf(skeleton.obj);
    const int sec_id = btf ? btf__find_by_name_kind(btf, ".rodata", BTF_KIND_DATASEC) : -1;
    if (sec_id < 0) return out;
    const struct btf_type* sec = btf__type_by_id(btf, static_cast<uint32_t>(sec_id));
    const struct btf_var_secinfo* vars = btf_var_secinfos(sec);
    for (unsigned i = 0; i < btf_vlen(sec); i++)
        out.rodata.push_back(btf__name_by_offset(btf, btf__type_by_id(btf, vars[i].type)->name_off));
    return out;
}

static_assert(sizeof(iolens_run_count) % 8 == 0, "a per-CPU value's stride is its size rounded up to 8");

std::vector<recording::ProgramCost> ProbeSet::program_costs() const {
    std::vector<recording::ProgramCost> costs;
    for (const auto& fam : families_) {
        recording::ProgramCost cost;
        cost.family = fam->spec->name;
        if (const bpf_map* runs = bpf_object__find_map_by_name(fam->skeleton.obj, "iolens_runs")) {
            // A per-CPU value: one struct per possible CPU, each rounded up
            // to 8 bytes (it is 24).
            const int ncpu = libbpf_num_possible_cpus();
            std::vector<iolens_run_count> per_cpu(ncpu > 0 ? static_cast<size_t>(ncpu) : 0);
            const uint32_t zero = 0;
            if (!per_cpu.empty() && bpf_map_lookup_elem(bpf_map__fd(runs), &zero, per_cpu.data()) == 0) {
                for (const iolens_run_count& n : per_cpu) {
                    cost.counted_runs += n.runs;
                    cost.timed_runs += n.timed_runs;
                    cost.timed_ns += n.timed_ns;
                }
            }
        }
        bpf_program* prog;
        bpf_object__for_each_program(prog, fam->skeleton.obj) {
            const int fd = bpf_program__fd(prog);
            if (fd < 0) continue;  // not loaded (another hook kind)
            bpf_prog_info info{};
            uint32_t len = sizeof(info);
            if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0) {
                cost.run_ns += info.run_time_ns;
                cost.runs += info.run_cnt;
            }
        }
        costs.push_back(cost);
    }
    return costs;
}

}  // namespace iolens::probes
