#include "probes/probe_set.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

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

// The hooks worth trying for a family, best first, given what the kernel has.
std::vector<Hook> candidate_hooks(const Features& f, const std::vector<std::string>& tps)
{
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

Result<std::unique_ptr<ProbeSet>> ProbeSet::load(const Features& features, const ProbeOptions& options)
{
    libbpf_set_print(libbpf_log);
    std::unique_ptr<ProbeSet> set(new ProbeSet());
    set->skels_ = std::make_unique<Skeletons>();
    const uint32_t bitmap_words = (features.pid_max + 63) / 64;

    // --- process family: creates the shared maps -----------------------------
    const std::vector<std::string> proc_tps = {"sched_process_fork", "sched_process_exec", "sched_process_exit"};
    std::string proc_errors;
    for (Hook hook : candidate_hooks(features, proc_tps)) {
        ProcSkel skel(proc_bpf__open());
        if (!skel)
            return make_error("cannot open the process BPF object: " + errno_text(errno));
        const bool btf = hook == Hook::TpBtf;
        bpf_program__set_autoload(skel->progs.sched_fork_btf, btf);
        bpf_program__set_autoload(skel->progs.sched_exec_btf, btf);
        bpf_program__set_autoload(skel->progs.sched_exit_btf, btf);
        bpf_program__set_autoload(skel->progs.sched_fork_raw, !btf);
        bpf_program__set_autoload(skel->progs.sched_exec_raw, !btf);
        bpf_program__set_autoload(skel->progs.sched_exit_raw, !btf);
        bpf_map__set_max_entries(skel->maps.iolens_tracked, bitmap_words);
        bpf_map__set_max_entries(skel->maps.iolens_events, static_cast<uint32_t>(options.ringbuf_bytes));
        skel->rodata->iolens_wakeup_bytes = options.wakeup_bytes;
        if (int err = proc_bpf__load(skel.get()); err != 0) {
            proc_errors += std::string(hook_prefix(hook)) + ": " + errno_text(err) + "; ";
            spdlog::debug("process probes: {} failed to load: {}", hook_prefix(hook), errno_text(err));
            continue;
        }
        set->skels_->proc = std::move(skel);
        set->skels_->proc_hook = hook;
        break;
    }
    if (!set->skels_->proc)
        return make_error("cannot load the process-tracking BPF programs (" + proc_errors +
                          "): run `iolens check` to see what this kernel lacks");
    set->statuses_.push_back({"process", join_hooks(set->skels_->proc_hook, proc_tps), false, ""});

    proc_bpf* proc = set->skels_->proc.get();
    if (auto r = set->tracked_.map(bpf_map__fd(proc->maps.iolens_tracked), bitmap_words); !r)
        return r.error();

    // --- syscall family: reuses the shared maps --------------------------------
    const std::vector<std::string> sys_tps = {"sys_enter", "sys_exit"};
    std::string sys_errors;
    for (Hook hook : candidate_hooks(features, sys_tps)) {
        SyscallsSkel skel(syscalls_bpf__open());
        if (!skel)
            return make_error("cannot open the syscall BPF object: " + errno_text(errno));
        const bool btf = hook == Hook::TpBtf;
        bpf_program__set_autoload(skel->progs.sys_enter_btf, btf);
        bpf_program__set_autoload(skel->progs.sys_exit_btf, btf);
        bpf_program__set_autoload(skel->progs.sys_enter_raw, !btf);
        bpf_program__set_autoload(skel->progs.sys_exit_raw, !btf);
        bpf_map__reuse_fd(skel->maps.iolens_tracked, bpf_map__fd(proc->maps.iolens_tracked));
        bpf_map__reuse_fd(skel->maps.iolens_events, bpf_map__fd(proc->maps.iolens_events));
        bpf_map__reuse_fd(skel->maps.iolens_counters, bpf_map__fd(proc->maps.iolens_counters));
        skel->rodata->iolens_wakeup_bytes = options.wakeup_bytes;
        if (int err = syscalls_bpf__load(skel.get()); err != 0) {
            sys_errors += std::string(hook_prefix(hook)) + ": " + errno_text(err) + "; ";
            spdlog::debug("syscall probes: {} failed to load: {}", hook_prefix(hook), errno_text(err));
            continue;
        }
        set->skels_->syscalls = std::move(skel);
        set->skels_->syscalls_hook = hook;
        break;
    }
    if (!set->skels_->syscalls)
        return make_error("cannot load the syscall BPF programs (" + sys_errors +
                          "): run `iolens check` to see what this kernel lacks");
    set->statuses_.push_back({"syscalls", join_hooks(set->skels_->syscalls_hook, sys_tps), false, ""});
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
