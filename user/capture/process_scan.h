#pragma once
// Reads processes from /proc: the descendants of a pid (for attach mode) and
// what we know of each (ppid, comm, cmdline).
#include <sys/types.h>

#include <cstdint>
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

// A regular file or directory a process has open (from /proc/PID/fd).
struct OpenFile {
    int fd = -1;
    uint32_t dev = 0;  // kernel dev_t: major << 20 | minor (as the BPF side has it)
    uint64_t ino = 0;
    uint32_t mode = 0;
    uint64_t size = 0;
    std::string path;  // what /proc/PID/fd/N links to
};
// The regular files and directories pid has open. skip_cloexec: leave out
// fds that close at exec (a launched command's, read before it execs).
std::vector<OpenFile> open_files(pid_t pid, bool skip_cloexec);

}  // namespace iolens::capture
