#include "probes/probe_set.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>

#include "proc.skel.h"
#include "probes/skeleton.h"
#include "syscalls.skel.h"

namespace iolens::probes {

namespace {

using ProcSkel = SkeletonPtr<proc_bpf, proc_bpf__destroy>;
using SyscallsSkel = SkeletonPtr<syscalls_bpf, syscalls_bpf__destroy>;

// One way of hooking a family: the section prefix and the tracepoints it needs.
enum class Hook { TpBtf, RawTp };

const char* hook_prefix(Hook h) { return h == Hook::TpBtf ? "tp_btf" : "raw_tp"; }

std::string join_hooks(Hook h, const std::vector<std::string>& tps)
{
    std::string s;
    for (const auto& tp : tps)
        s += (s.empty() ? "" : ",") + std::string(hook_prefix(h)) + "/" + tp;
    return s;
}

// The hooks worth trying for a family, best first, given what the kernel has
// (or only the forced one).
std::vector<Hook> candidate_hooks(const Features& f, const std::vector<std::string>& tps,
                                  const std::string& force_hook)
{
    if (force_hook == "raw_tp")
        return {Hook::RawTp};
    if (force_hook == "tp_btf")
        return {Hook::TpBtf};
    bool all_in_btf = f.btf;
    for (const auto& tp : tps)
        all_in_btf = all_in_btf && f.has_btf_tracepoint(tp);
    std::vector<Hook> hooks;
    if (all_in_btf)
        hooks.push_back(Hook::TpBtf);
    hooks.push_back(Hook::RawTp);
    return hooks;
}

std::string errno_text(int err)
{
    return std::strerror(err < 0 ? -err : err);
}

int libbpf_log(enum libbpf_print_level level, const char* fmt, va_list args)
{
    char buf[1024];
    vsnprintf(buf, sizeof(buf), fmt, args);
    size_t n = strlen(buf);
    while (n && buf[n - 1] == '\n')
        buf[--n] = 0;
    if (level == LIBBPF_WARN)
        spdlog::debug("libbpf: {}", buf);  // load failures are explained by us, at warn
    else
        spdlog::trace("libbpf: {}", buf);
    return 0;
}

}  // namespace

struct ProbeSet::Skeletons {
    ProcSkel proc;
    SyscallsSkel syscalls;
    Hook proc_hook = Hook::RawTp;
    Hook syscalls_hook = Hook::RawTp;
};

const char* counter_name(int counter)
{
    switch (counter) {
    case IOLENS_CNT_RECORDS: return "records";
    case IOLENS_CNT_RB_FULL: return "ring_buffer_full";
    case IOLENS_CNT_STATE_FAIL: return "no_thread_state";
    case IOLENS_CNT_PID_RANGE: return "pid_above_bitmap";
    case IOLENS_CNT_PATH_TRUNC: return "path_truncated";
    default: return "unknown";
    }
}

namespace {

// Autoloads the programs of one hook variant (by section prefix) and not the
// others: the choice is made here, before load, never by kernel version.
void select_hook(bpf_object* obj, Hook hook)
{
    const std::string prefix = std::string(hook_prefix(hook)) + "/";
    bpf_program* prog;
    bpf_object__for_each_program(prog, obj)
    {
        const char* sec = bpf_program__section_name(prog);
        bpf_program__set_autoload(prog, sec && std::strncmp(sec, prefix.c_str(), prefix.size()) == 0);
    }
}

// Opens and loads one family's skeleton with the best hook the kernel accepts,
// falling back hook by hook. `prepare` sizes maps and sets tunables (between
// open and load, as libbpf wants).
template <typename Skel, void (*Destroy)(Skel*)>
Result<SkeletonPtr<Skel, Destroy>> load_family(const char* family, const Features& features,
                                               const std::string& force_hook,
                                               const std::vector<std::string>& tracepoints, Skel* (*open)(),
                                               int (*load)(Skel*), const std::function<void(Skel*)>& prepare,
                                               Hook& chosen)
{
    std::string errors;
    for (Hook hook : candidate_hooks(features, tracepoints, force_hook)) {
        SkeletonPtr<Skel, Destroy> skel(open());
        if (!skel)
            return make_error(std::string("cannot open the ") + family + " BPF object: " + errno_text(errno));
        select_hook(skel->obj, hook);
        prepare(skel.get());
        if (int err = load(skel.get()); err != 0) {
            errors += std::string(errors.empty() ? "" : "; ") + hook_prefix(hook) + ": " + errno_text(err);
            spdlog::debug("{} probes: {} failed to load: {}", family, hook_prefix(hook), errno_text(err));
            continue;
        }
        chosen = hook;
        spdlog::debug("{} probes loaded: {}", family, join_hooks(hook, tracepoints));
        return skel;
    }
    return make_error(std::string("cannot load the ") + family + " BPF programs (" + errors +
                      "): run `iolens check` to see what this kernel lacks");
}

}  // namespace

Result<std::unique_ptr<ProbeSet>> ProbeSet::load(const Features& features, const ProbeOptions& options)
{
    libbpf_set_print(libbpf_log);
    std::unique_ptr<ProbeSet> set(new ProbeSet());
    set->skels_ = std::make_unique<Skeletons>();
    Skeletons& sk = *set->skels_;
    const uint32_t bitmap_words = (features.pid_max + 63) / 64;

    // The process family comes first and creates the shared maps.
    const std::vector<std::string> proc_tps = {"sched_process_fork", "sched_process_exec", "sched_process_exit"};
    auto proc = load_family<proc_bpf, proc_bpf__destroy>(
        "process-tracking", features, options.force_hook, proc_tps, proc_bpf__open, proc_bpf__load,
        [&](proc_bpf* skel) {
            bpf_map__set_max_entries(skel->maps.iolens_tracked, bitmap_words);
            bpf_map__set_max_entries(skel->maps.iolens_events, static_cast<uint32_t>(options.ringbuf_bytes));
            skel->rodata->iolens_wakeup_bytes = options.wakeup_bytes;
        },
        sk.proc_hook);
    if (!proc)
        return proc.error();
    sk.proc = std::move(proc.value());
    set->statuses_.push_back({"process", join_hooks(sk.proc_hook, proc_tps), false, ""});
    spdlog::debug("tracked-pid bitmap {} words (pid_max {}); ring buffer {} MiB", bitmap_words, features.pid_max,
                  options.ringbuf_bytes >> 20);
    if (auto r = set->tracked_.map(bpf_map__fd(sk.proc->maps.iolens_tracked), bitmap_words); !r)
        return r.error();

    // Every other family reuses them.
    const std::vector<std::string> sys_tps = {"sys_enter", "sys_exit"};
    auto sys = load_family<syscalls_bpf, syscalls_bpf__destroy>(
        "syscall", features, options.force_hook, sys_tps, syscalls_bpf__open, syscalls_bpf__load,
        [&](syscalls_bpf* skel) {
            bpf_map__reuse_fd(skel->maps.iolens_tracked, bpf_map__fd(sk.proc->maps.iolens_tracked));
            bpf_map__reuse_fd(skel->maps.iolens_events, bpf_map__fd(sk.proc->maps.iolens_events));
            bpf_map__reuse_fd(skel->maps.iolens_counters, bpf_map__fd(sk.proc->maps.iolens_counters));
            skel->rodata->iolens_wakeup_bytes = options.wakeup_bytes;
        },
        sk.syscalls_hook);
    if (!sys)
        return sys.error();
    sk.syscalls = std::move(sys.value());
    set->statuses_.push_back({"syscalls", join_hooks(sk.syscalls_hook, sys_tps), false, ""});
    return set;
}

ProbeSet::~ProbeSet() = default;

Result<void> ProbeSet::attach()
{
    if (int err = proc_bpf__attach(skels_->proc.get()); err != 0) {
        statuses_[0].reason = "attach failed: " + errno_text(err);
        return make_error("cannot attach the process-tracking probes: " + errno_text(err));
    }
    statuses_[0].attached = true;
    if (int err = syscalls_bpf__attach(skels_->syscalls.get()); err != 0) {
        statuses_[1].reason = "attach failed: " + errno_text(err);
        return make_error("cannot attach the syscall probes: " + errno_text(err));
    }
    statuses_[1].attached = true;
    return {};
}

void ProbeSet::detach()
{
    if (skels_->syscalls)
        syscalls_bpf__detach(skels_->syscalls.get());
    if (skels_->proc)
        proc_bpf__detach(skels_->proc.get());
}

int ProbeSet::ringbuf_fd() const
{
    return bpf_map__fd(skels_->proc->maps.iolens_events);
}

std::map<std::string, uint64_t> ProbeSet::read_counters() const
{
    std::map<std::string, uint64_t> out;
    const int ncpu = libbpf_num_possible_cpus();
    const int fd = bpf_map__fd(skels_->proc->maps.iolens_counters);
    std::vector<uint64_t> values(ncpu > 0 ? ncpu : 1);
    for (uint32_t key = 0; key < IOLENS_CNT_COUNT; key++) {
        uint64_t sum = 0;
        if (bpf_map_lookup_elem(fd, &key, values.data()) == 0)
            for (uint64_t v : values)
                sum += v;
        out[counter_name(static_cast<int>(key))] = sum;
    }
    return out;
}

}  // namespace iolens::probes
