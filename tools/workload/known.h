// The `known` scenario and what iolens must report for it, exactly: one table
// for the workload that makes the calls (main: known_mode.cpp, child-a:
// known_child_a.cpp, the exec-child: known_exec_child.cpp), the privileged
// test that asserts them (tests/privileged/known_scenario_test.cpp) and
// docs/workload.md, whose tables a unit test compares with these
// (tests/unit/workload_doc_test.cpp).
//
// Every call of the scenario is checked against its expected result, so a run
// that exits 0 made exactly the calls these tables add up. Changing a call in
// the workload changes a row here; the privileged test then says which.
//
// Header-only data, free of the workload's other headers: the tests include it.
#pragma once

#include <cstdint>

namespace wl::known {

// D/known.dat: written by main, read by the children, mapped by main.
inline constexpr const char* kDataName = "known.dat";
inline constexpr uint64_t kDataSize = 131072;
inline constexpr uint64_t kDataKey = 0x696F6C656E73ull;  // "iolens"
// D/does-not-exist: the target of the failing open and the failing access.
inline constexpr const char* kMissingName = "does-not-exist";
// Main <-> child-a message rounds over pipes (none of them is file I/O).
inline constexpr int kPingPongRounds = 256;
// The exec-child's command line: main execs /proc/self/exe with
// {kExecArgv0, kExecMode, "--dir", D}, so the kernel names it "exe".
inline constexpr const char* kExecArgv0 = "iolens-workload";
inline constexpr const char* kExecMode = "known-exec-child";

struct Process {
    const char* role;
    const char* comm;
    const char* start;
};
inline constexpr Process kProcesses[] = {
    {"main", "iolens-workload", "the command, `iolens-workload known --dir D`"},
    {"child-a", "iolens-workload", "`fork` of main (no exec)"},
    {"exec-child", "exe",
     "`fork` of main, then `execve(\"/proc/self/exe\", [\"iolens-workload\", \"known-exec-child\", "
     "\"--dir\", D])`"},
};

// iolens's classes (enum iolens_op), in its order.
inline constexpr const char* kClasses[] = {"read", "write", "open",    "close", "stat",
                                           "seek", "mmap",  "readdir", "sync"};

// What iolens counts for one process or file in one class.
struct Count {
    const char* who;  // a role of kProcesses; or a file: kDataName, or "D" (the directory)
    const char* op;   // a class of kClasses
    uint64_t calls, errors, bytes, requested;
    const char* syscalls;  // which calls they are
};

// Per process: every class that is not all zeros. A class not listed is 0
// (main's 256 pipe reads and child-a's 256 pipe writes do not count).
inline constexpr Count kProcessCounts[] = {
    {"main", "open", 4, 1, 0, 0, "creat 1, open 1, openat2 1, openat 1 (ENOENT)"},
    {"main", "close", 7, 0, 0, 0, "known.dat 2, D 1, pipe ends 4"},
    {"main", "write", 24, 0, 155648, 155648, "write 16, writev 2, pwrite64 4, pwritev 1, pwritev2 1"},
    {"main", "stat", 8, 0, 0, 0,
     "stat, lstat, newfstatat, statx, access, faccessat, faccessat2, fstat: 1 each"},
    {"main", "mmap", 1, 0, 0, 131072, "mmap 1"},
    {"main", "readdir", 2, 0, 80, 65536, "getdents64 2"},
    {"main", "sync", 3, 0, 0, 0, "fsync 1, fdatasync 1, sync_file_range 1"},
    {"child-a", "open", 2, 0, 0, 0, "openat 1, open 1"},
    {"child-a", "close", 6, 0, 0, 0, "known.dat 2, pipe ends 4"},
    {"child-a", "read", 17, 1, 118240, 126492, "pread64 8, read 5 (1 EBADF), readv 1, preadv 1, preadv2 2"},
    {"child-a", "seek", 5, 1, 0, 0, "lseek 5 (1 EINVAL)"},
    {"exec-child", "open", 1, 0, 0, 0, "openat 1"},
    {"exec-child", "close", 1, 0, 0, 0, "known.dat 1"},
    {"exec-child", "read", 17, 0, 131072, 139264, "read 17"},
    {"exec-child", "write", 1, 1, 0, 10, "write 1 (EBADF)"},
    {"exec-child", "stat", 3, 1, 0, 0, "fstat 1, newfstatat 1, access 1 (ENOENT)"},
};

// Per file: the calls on an fd of the file. Path-based stats and the failing
// openat are per process only; pipes and does-not-exist are no file entry.
inline constexpr Count kFileCounts[] = {
    {kDataName, "read", 34, 1, 249312, 265756, "child-a 17, exec-child 17"},
    {kDataName, "write", 25, 1, 155648, 155658, "main 24, exec-child 1 (EBADF)"},
    {kDataName, "open", 5, 0, 0, 0, "main 2, child-a 2, exec-child 1"},
    {kDataName, "close", 5, 0, 0, 0, "main 2, child-a 2, exec-child 1"},
    {kDataName, "stat", 2, 0, 0, 0, "the two fstats"},
    {kDataName, "seek", 5, 1, 0, 0, "child-a"},
    {kDataName, "mmap", 1, 0, 0, 131072, "main"},
    {kDataName, "sync", 3, 0, 0, 0, "main"},
    {"D", "open", 1, 0, 0, 0, "main's openat2"},
    {"D", "readdir", 2, 0, 80, 65536, "main's getdents64"},
    {"D", "close", 1, 0, 0, 0, "main"},
};

// known.dat's data-moving calls by start offset (EOF reads and failed calls
// move nothing and are not counted): child-a 8 sequential and 7 random reads,
// the exec-child 16 sequential reads, main 19 sequential and 5 random writes,
// judged by offset alone; an access at offset 0 starts a new pass and is
// sequential (model/access_pattern.h), which moves 3 of the 12 to sequential
// (as the golden known report shows: 84/16 of 55).
inline constexpr uint64_t kDataSequential = 46;
inline constexpr uint64_t kDataRandom = 9;

// Size histograms (log2 buckets of the bytes returned, successful calls only;
// 0 and 1 fall in bucket 0): every bucket of every histogram of these
// (process, class) pairs.
struct Bucket {
    const char* who;
    const char* op;
    uint64_t lo, count;
    const char* from;
};
inline constexpr Bucket kSizeBuckets[] = {
    {"child-a", "read", 0, 1, "pread64 at EOF returning 0"},
    {"child-a", "read", 32, 1, "pread64 asking 100, returning 40"},
    {"child-a", "read", 512, 6, "pread64 512 x3, read 1000 x3"},
    {"child-a", "read", 1024, 1, "readv 1024"},
    {"child-a", "read", 2048, 1, "preadv2 2048"},
    {"child-a", "read", 4096, 3, "pread64 4096 x2, preadv2 4096"},
    {"child-a", "read", 16384, 2, "read 16384, preadv 16384"},
    {"child-a", "read", 65536, 1, "pread64 65536"},
    {"exec-child", "read", 0, 1, "read at EOF returning 0"},
    {"exec-child", "read", 8192, 16, "read 8192"},
    {"main", "write", 4096, 22, "write x16, pwrite64 x4, pwritev, pwritev2"},
    {"main", "write", 32768, 2, "writev"},
    {"main", "readdir", 0, 1, "the second getdents64"},
    {"main", "readdir", 64, 1, "the first getdents64 (80 bytes)"},
};

}  // namespace wl::known
