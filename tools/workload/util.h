// Messages, pipe I/O and timing shared by the modes.
//
// Nothing here uses stdio streams: every byte goes out through one write(2)
// per message, so the only syscalls a mode makes are the ones it spells out.
// Messages go to stderr (fd 2) and reports to stdout (fd 1); both are expected
// to be a pipe or a tty while traced (see docs/workload.md).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

namespace wl {

// Exit statuses of every mode.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // a runtime check or syscall failed
inline constexpr int kExitUsage = 2;    // bad command line

// The mode name prefixed to every message ("iolens-workload dl: ...").
void set_message_context(const char* mode);

// Print "iolens-workload <mode>: <message>" on stderr and _exit(kExitFailure).
// _exit, not exit: forked children must not run the parent's exit handlers,
// and nothing here has buffered output to flush.
[[noreturn]] void fail(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// As fail(), followed by ": <description of err> (<ERRNAME>)".
[[noreturn]] void fail_errno(int err, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

// As fail(), plus a hint to --help, exiting with kExitUsage.
[[noreturn]] void fail_usage(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// One formatted write(2) to stdout.
void print_out(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

// Write all of buf to fd (a pipe or a tty), retrying short writes.
void write_all(int fd, const void* buf, size_t len, const char* what);

// Read exactly len bytes from fd (a pipe). Returns false on end of file before
// the first byte; a partial message or an error is fatal.
bool read_exact(int fd, void* buf, size_t len, const char* what);

// CLOCK_MONOTONIC in nanoseconds (served by the vDSO: no syscall).
uint64_t monotonic_ns();
// CPU time of the whole process (all threads, user and system).
uint64_t process_cpu_ns();

// Spin for `ns` nanoseconds: stands in for per-sample compute without any
// syscall (sleeping would hand the CPU away and look like I/O wait).
void busy_wait_ns(uint64_t ns);

// Wait for `pid` and fail unless it exited with status 0.
void wait_for_success(pid_t pid, const char* who);

// A 4096-byte-aligned buffer of `size` bytes (posix_memalign: from brk below
// 128 KiB, an anonymous mmap from there on; neither is a file syscall). Fails
// the run if it cannot; free it with std::free.
uint8_t* alloc_aligned(uint64_t size);

}  // namespace wl
