#pragma once
// What this kernel and this process can do, probed once at start and passed by
// reference to whoever decides how to attach. Tests can construct one by hand.
#include <optional>
#include <string>
#include <vector>

namespace iolens::probes {

struct Features {
    std::string kernel_release;
    bool btf = false;          // /sys/kernel/btf/vmlinux present and parsable
    bool tracefs = false;      // tracefs mounted (classic tracepoints need it)
    bool cap_bpf = false;      // CAP_BPF (or CAP_SYS_ADMIN)
    bool cap_perfmon = false;  // CAP_PERFMON (or CAP_SYS_ADMIN)
    bool cap_sys_admin = false;
    bool cap_sys_resource = false;
    bool task_storage = false;  // BPF_MAP_TYPE_TASK_STORAGE
    bool ringbuf = false;       // BPF_MAP_TYPE_RINGBUF
    bool folio = false;         // struct folio in the BTF (5.16+): the page-cache tracepoints pass folios
    bool kfunc_rdonly_cast = false;  // the bpf_rdonly_cast kfunc (6.2+), in the kernel's BTF
    unsigned pid_max = 4194304;

    // Raw tracepoints known to this kernel's BTF (btf_trace_<name> typedefs):
    // the precondition of tp_btf and a good sign for raw_tp.
    bool has_btf_tracepoint(const std::string& name) const;
    // Arguments the tracepoint passes (its btf_trace_<name> prototype, less
    // the probe's data pointer); nullopt when unknown.
    std::optional<int> tracepoint_arity(const std::string& name) const;
    std::vector<std::string> btf_tracepoints;  // sorted, filled by probe()
    std::vector<int> btf_tracepoint_arity;     // parallel to btf_tracepoints; -1 if unknown

    bool can_trace() const { return (cap_bpf && cap_perfmon) || cap_sys_admin; }

    static Features probe();
};

}  // namespace iolens::probes
