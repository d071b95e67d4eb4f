// Shared pieces of the modes that read or map one existing file (the
// page-cache and block-layer modes, stall, small-random, turn-read,
// reverse-aio-read): opening it to read and learning its size, reading it
// exactly, mapping it, and counting which of its pages are in the page cache.
//
// Every helper makes exactly the syscalls its comment names, through sys.h.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wl {

// x86_64 (the only target, see sys.h) has 4096-byte pages: the unit of mincore,
// of the page cache and of mmap-scan's stride.
inline constexpr uint64_t kPageSize = 4096;

inline uint64_t page_count(uint64_t bytes) { return (bytes + kPageSize - 1) / kPageSize; }

// The largest read or write size (--size, --chunk) the modes accept.
inline constexpr uint64_t kMaxIo = uint64_t{1} << 30;

// openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC | extra_flags). Fails the run
// (exit 1) with a message when the call fails.
int open_for_read(const char* path, int extra_flags = 0);

// fstat(fd): the size of a regular file. Anything but a regular file fails the
// run: the page-cache modes mean regular files, and only those are counted.
uint64_t regular_file_size(int fd, const char* path);

// regular_file_size(), which must hold at least one read of `read_size` bytes.
uint64_t size_for_reads(int fd, const char* path, uint64_t read_size);

// pread64(fd, buf, size, off), which must return exactly `size` bytes: a
// failure or a short read fails the run.
void pread_exact(int fd, uint8_t* buf, uint64_t size, uint64_t off, const char* path);

// mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0); size > 0. The mapping is
// never touched by the helpers below, so it faults nothing in.
const uint8_t* map_file(int fd, uint64_t size, const char* path);
void unmap_file(const uint8_t* map, uint64_t size, const char* path);

// Pages of [map, map + size) that are in the page cache, by mincore(): one
// call per kMincoreWindow pages (so one call for files up to 4 GiB). mincore
// only looks: it neither faults pages in nor starts readahead.
//
// The kernel reports true residency only to a caller that owns the file or may
// open it for writing (or has CAP_FOWNER, as root does); to anyone else it
// reports every page as resident (Linux >= 5.2, a side-channel fix).
inline constexpr uint64_t kMincoreWindow = uint64_t{1} << 20;
uint64_t resident_pages(const uint8_t* map, uint64_t size, const char* path);

// fadvise64(fd, offset, len, advice) (posix_fadvise's syscall); fails the run
// when the call fails. `what` names the advice in the message.
void advise(int fd, uint64_t offset, uint64_t len, int advice, const char* what, const char* path);

}  // namespace wl
