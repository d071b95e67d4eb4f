#pragma once
// Reads processes from /proc: the descendants of a pid (for attach mode) and
// what we know of each (ppid, comm, cmdline).
#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "recording/capture.h"

namespace iolens::capture {

bool process_exists(pid_t pid);
// A kernel thread (PF_KTHREAD): no file syscalls of its own to trace. comm: its name.
bool is_kernel_thread(pid_t pid, std::string& comm);
// pid itself and every live descendant, found through /proc/*/stat ppids.
std::vector<pid_t> process_tree(pid_t root);
std::optional<recording::ProcessInfo> read_process(pid_t pid);

}  // namespace iolens::capture
