#include "dataset.h"

#include "rng.h"
#include "sys.h"
#include "util.h"

#include <cerrno>
#include <cstdio>
#include <vector>

namespace wl {

std::string sample_path(const char* dir, uint64_t index) {
    char name[48];
    std::snprintf(name, sizeof name, "/sample_%06llu.bin", static_cast<unsigned long long>(index));
    return std::string(dir) + name;
}

uint64_t sample_key(uint64_t seed, uint64_t index) { return mix64(mix64(seed) + index); }

void fill_content(uint64_t key, uint64_t offset, uint8_t* buf, size_t len) {
    // Byte-by-byte on purpose: the stream is defined as little-endian
    // whatever the host, and this path is not hot enough to matter.
    uint64_t word_index = offset / 8;
    unsigned shift = static_cast<unsigned>(offset % 8) * 8;
    uint64_t word = splitmix64_at(key, word_index);
    for (size_t i = 0; i < len; ++i) {
        buf[i] = static_cast<uint8_t>(word >> shift);
        shift += 8;
        if (shift == 64 && i + 1 < len) {
            shift = 0;
            word = splitmix64_at(key, ++word_index);
        }
    }
}

void create_content_file(const char* path, uint64_t size, uint64_t key, bool excl) {
    const int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | (excl ? O_EXCL : 0);
    const int fd = sc::openat(AT_FDCWD, path, flags, 0644);
    if (fd < 0) fail_errno(errno, "cannot create %s", path);
    std::vector<uint8_t> chunk(size < kCreateChunk ? size : kCreateChunk);
    for (uint64_t off = 0; off < size;) {
        const size_t len = size - off < chunk.size() ? static_cast<size_t>(size - off) : chunk.size();
        fill_content(key, off, chunk.data(), len);
        // A regular-file write completes in full unless the disk is full; a
        // short write is reported rather than retried so the count stays exact.
        const ssize_t n = sc::write(fd, chunk.data(), len);
        if (n < 0) fail_errno(errno, "cannot write %s", path);
        if (static_cast<size_t>(n) != len)
            fail("short write to %s (%zd of %zu bytes): is the disk full?", path, n, len);
        off += len;
    }
    if (sc::close(fd) != 0) fail_errno(errno, "cannot close %s", path);
}

int open_or_create(const char* path, uint64_t size, uint64_t key) {
    int fd = sc::openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) return fd;
    if (errno != ENOENT) fail_errno(errno, "cannot open %s", path);
    create_content_file(path, size, key, /*excl=*/true);
    fd = sc::openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail_errno(errno, "cannot open %s after creating it", path);
    return fd;
}

}  // namespace wl
