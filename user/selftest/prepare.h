#pragma once
// The untraced side of the self-test's set-up: a scratch directory with the
// files the workload reads, the page-cache state each check needs (the warm
// file cached, the cold file evicted, both verified with mincore), and what
// kind of storage the directory is on, which decides whether the page-cache
// miss and block-layer checks can mean anything there.
#include <sys/types.h>

#include <cstdint>
#include <string>

#include "util/result.h"

namespace iolens::selftest {

struct Storage {
    std::string fs_type;          // "ext4", "tmpfs", ... or "0x<magic>"
    bool memory_backed = false;   // tmpfs/ramfs: pages are the storage, nothing is ever read from a disk
    bool block_device = false;    // the file system sits on a block device of this machine
    std::string device;           // "vda" (from /sys/dev/block) when block_device
    std::string no_block_reason;  // why block_device is false
};

struct FileId {
    uint64_t ino = 0;
    uint32_t dev = 0;  // kernel encoding (major << 20 | minor), as iolens reports it
};

struct Prepared {
    std::string dir;  // the scratch directory (absolute, symlinks resolved)
    Storage storage;
    FileId warm, cold;
};

// Checks that base is a writable directory, creates base/iolens-selftest.XXXXXX
// and writes the scenario's files in it (fsync'd).
Result<Prepared> prepare_files(const std::string& base);

// Page-cache residency of a file: pages cached out of pages in the file.
struct Residency {
    uint64_t resident = 0, total = 0;
};
Result<Residency> residency(const std::string& path);
// Drops a file's clean pages from the page cache (POSIX_FADV_DONTNEED after
// fsync) and returns what is left resident.
Result<Residency> evict(const std::string& path);
// Reads a file once so that all of it is cached; returns the residency after.
Result<Residency> warm_up(const std::string& path);

// Keeps a file's pages in the page cache while it lives: the file is mapped
// and mlock'ed, so reclaim (a memory-limited cgroup, another job's pressure,
// drop_caches) cannot evict part of the warm file between the warm-up and
// the workload's reads and turn an exact hit count into a false FAIL.
class CachePin {
public:
    CachePin() = default;
    CachePin(const CachePin&) = delete;
    CachePin& operator=(const CachePin&) = delete;
    CachePin(CachePin&& o) noexcept;
    CachePin& operator=(CachePin&& o) noexcept;
    ~CachePin();
    bool pinned() const { return map_ != nullptr; }

private:
    friend Result<CachePin> pin_in_cache(const std::string& path);
    void* map_ = nullptr;
    size_t len_ = 0;
};
// Maps and locks the whole file (faulting it in); an error when the kernel
// refuses the lock (no CAP_IPC_LOCK and RLIMIT_MEMLOCK too small).
Result<CachePin> pin_in_cache(const std::string& path);

Result<FileId> file_id(const std::string& path);
// Removes the scratch directory and everything the self-test put in it.
void remove_scratch(const std::string& dir);

}  // namespace iolens::selftest
