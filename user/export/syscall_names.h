#pragma once
// Names of the syscalls a record's syscall_nr holds (the recording
// architecture's numbers: x86_64, the one iolens builds for; see
// bpf/syscall_nr.bpf.h), and the names DFTracer gives the same calls.
#include <cstdint>
#include <string_view>

namespace iolens::exports {

// "pread64"; the class name ("read", "stat", ...) for a number not known here.
std::string_view syscall_name(uint16_t nr, int op);
// DFTracer's name for a call of class op that took `path` (enum iolens_path):
// the libc function DFTracer would have seen ("pread" for pread64, "open64"
// for openat), so that DFAnalyzer counts its bytes (it sizes only reads and
// writes it knows by name: docs/export.md). AIO and io_uring requests and
// copy calls are named as the read or write they do ("pread", "pwrite").
std::string_view dftracer_name(uint16_t nr, int op, int path);

}  // namespace iolens::exports
