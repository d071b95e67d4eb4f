#pragma once
// --cgroup: a cgroup v2 group (a Slurm job step, a systemd scope, a
// container) as the target of `iolens record`. The kernel follows its
// membership (bpf/proc.bpf.c); user space resolves the group, lists the
// members it has at attach and watches whether it still runs.
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace iolens::capture {

struct CgroupTarget {
    std::string path;  // its directory on a cgroup2 mount
    uint64_t id = 0;   // the kernel's cgroup id: the directory's inode
};

// The group named by `arg`: a directory on a cgroup2 mount (absolute, or
// relative to a cgroup2 mount point: "system.slice/slurmstepd.scope"), or a
// cgroup id (digits). A cgroup v1 directory, or a machine without a cgroup2
// mount, is an error that says how to get one.
Result<CgroupTarget> resolve_cgroup(const std::string& arg);

// The processes in the group and every group below it (cgroup.procs).
std::vector<pid_t> cgroup_members(const std::string& path);

// cgroup.events' "populated": whether a process is in the group or below;
// nothing when the group is gone (removed).
std::optional<bool> cgroup_populated(const std::string& path);

// CPU time of everything in the group since it was made (cpu.stat
// usage_usec, present in every cgroup2 group), or nothing.
std::optional<uint64_t> cgroup_cpu_ns(const std::string& path);

// The cgroup2 mount points of this mount namespace (/proc/self/mountinfo).
std::vector<std::string> cgroup2_mounts();

}  // namespace iolens::capture
