#include "probes/features.h"

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/capability.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>

namespace iolens::probes {

namespace {

constexpr long kTracefsMagic = 0x74726163;  // TRACEFS_MAGIC

bool is_tracefs(const char* path) {
    struct statfs st {};
    return statfs(path, &st) == 0 && st.f_type == kTracefsMagic;
}

// Effective capabilities of this process (capget; no libcap dependency).
void read_caps(Features& f) {
    __user_cap_header_struct hdr{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2]{};
    if (syscall(SYS_capget, &hdr, data) != 0) return;
    auto has = [&](int cap) { return (data[cap / 32].effective >> (cap % 32)) & 1u; };
    f.cap_sys_admin = has(CAP_SYS_ADMIN);
    f.cap_sys_resource = has(CAP_SYS_RESOURCE);
#ifdef CAP_BPF
    f.cap_bpf = has(CAP_BPF) || f.cap_sys_admin;
    f.cap_perfmon = has(CAP_PERFMON) || f.cap_sys_admin;
#else
    f.cap_bpf = has(39) || f.cap_sys_admin;
    f.cap_perfmon = has(38) || f.cap_sys_admin;
#endif
}

// btf_trace_<tp> is a typedef of a pointer to the probe's prototype,
// void (*)(void *data, <the tracepoint's arguments>): the arity is its
// parameter count less one. -1 if the typedef is not shaped like that.
int prototype_arity(const struct btf* btf, const struct btf_type* typedef_type) {
    const struct btf_type* ptr = btf__type_by_id(btf, typedef_type->type);
    if (!ptr || !btf_is_ptr(ptr)) return -1;
    const struct btf_type* proto = btf__type_by_id(btf, ptr->type);
    if (!proto || !btf_is_func_proto(proto) || btf_vlen(proto) < 1) return -1;
    return btf_vlen(proto) - 1;
}

}  // namespace

std::optional<int> Features::tracepoint_arity(const std::string& name) const {
    auto it = std::lower_bound(btf_tracepoints.begin(), btf_tracepoints.end(), name);
    if (it == btf_tracepoints.end() || *it != name) return std::nullopt;
    const size_t i = static_cast<size_t>(it - btf_tracepoints.begin());
    if (i >= btf_tracepoint_arity.size() || btf_tracepoint_arity[i] < 0) return std::nullopt;
    return btf_tracepoint_arity[i];
}

bool Features::has_btf_tracepoint(const std::string& name) const {
    return std::binary_search(btf_tracepoints.begin(), btf_tracepoints.end(), name);
}

Features Features::probe() {
    Features f;
    struct utsname u {};
    if (uname(&u) == 0) f.kernel_release = u.release;
    f.tracefs = is_tracefs("/sys/kernel/tracing") || is_tracefs("/sys/kernel/debug/tracing");
    read_caps(f);
    if (std::ifstream pm("/proc/sys/kernel/pid_max"); pm) pm >> f.pid_max;

    if (struct btf* btf = btf__load_vmlinux_btf()) {
        f.btf = true;
        const std::string prefix = "btf_trace_";
        std::vector<std::pair<std::string, int>> found;
        const unsigned n = btf__type_cnt(btf);
        for (unsigned id = 1; id < n; id++) {
            const struct btf_type* t = btf__type_by_id(btf, id);
            if (btf_is_struct(t)) {
                const char* name = btf__name_by_offset(btf, t->name_off);
                if (name && std::strcmp(name, "folio") == 0) f.folio = true;
                continue;
            }
            if (btf_is_func(t)) {
                const char* name = btf__name_by_offset(btf, t->name_off);
                if (name && std::strcmp(name, "bpf_rdonly_cast") == 0) f.kfunc_rdonly_cast = true;
                continue;
            }
            if (!btf_is_typedef(t)) continue;
            const char* name = btf__name_by_offset(btf, t->name_off);
            if (name && std::strncmp(name, prefix.c_str(), prefix.size()) == 0)
                found.emplace_back(name + prefix.size(), prototype_arity(btf, t));
        }
        std::sort(found.begin(), found.end());
        for (auto& [name, arity] : found) {
            f.btf_tracepoints.push_back(std::move(name));
            f.btf_tracepoint_arity.push_back(arity);
        }
        btf__free(btf);
    }
    // libbpf_probe_* need privileges; without them the answers stay false and
    // `check` says the capabilities are missing first.
    if (f.can_trace()) {
        f.task_storage = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, nullptr) == 1;
        f.ringbuf = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, nullptr) == 1;
    }
    return f;
}

}  // namespace iolens::probes
