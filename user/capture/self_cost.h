#pragma once
// CPU time and memory, read from the kernel's accounting, for the "what did
// tracing cost" line of the report: the recorder's own, and the traced job's.
#include <sys/types.h>

#include <cstdint>
#include <optional>

namespace iolens::capture {

struct Usage {
    uint64_t cpu_ns = 0;         // user + system
    uint64_t max_rss_bytes = 0;  // peak resident set
};

// This process (the recorder), all threads.
Usage self_usage();
// Children this process has waited for, and the ones they waited for.
uint64_t reaped_children_cpu_ns();
// A live process's CPU time plus that of the children it reaped
// (/proc/PID/stat utime, stime, cutime, cstime); nullopt if it is gone.
std::optional<uint64_t> process_cpu_ns(pid_t pid);

}  // namespace iolens::capture
