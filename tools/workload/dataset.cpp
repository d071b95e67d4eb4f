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

namespace {

uint8_t content_byte(uint64_t key, uint64_t offset) {
    return static_cast<uint8_t>(splitmix64_at(key, offset / 8) >> (offset % 8 * 8));
}

}  // namespace

void fill_content(uint64_t key, uint64_t offset, uint8_t* buf, size_t len) {
    // The stream is defined as little-endian whatever the host: bytes are
    // stored one by one (the compiler merges the whole-word case into one
    // store on a little-endian host), and only the unaligned head and tail
    // are produced a byte at a time.
    size_t i = 0;
    for (; i < len && (offset + i) % 8 != 0; ++i) buf[i] = content_byte(key, offset + i);
    for (; len - i >= 8; i += 8) {
        const uint64_t word = splitmix64_at(key, (offset + i) / 8);
        for (unsigned b = 0; b < 8; ++b) buf[i + b] = static_cast<uint8_t>(word >> (8 * b));
    }
    for (; i < len; ++i) buf[i] = content_byte(key, offset + i);
}

uint64_t file_key(uint64_t seed) { return mix64(mix64(seed) ^ 0x66696c65ull); }  // "file"

void write_content(int fd, const char* path, uint64_t size, size_t chunk, uint64_t key) {
    std::vector<uint8_t> buf(size < chunk ? static_cast<size_t>(size) : chunk);
    for (uint64_t off = 0; off < size;) {
        const size_t len = size - off < buf.size() ? static_cast<size_t>(size - off) : buf.size();
        fill_content(key, off, buf.data(), len);
        // A regular-file write completes in full unless the disk is full; a
        // short write is reported rather than retried so the count stays exact.
        const ssize_t n = sc::write(fd, buf.data(), len);
        if (n < 0) fail_errno(errno, "cannot write %s", path);
        if (static_cast<size_t>(n) != len)
            fail("short write to %s (%zd of %zu bytes): is the disk full?", path, n, len);
        off += len;
    }
}

void create_content_file(const char* path, uint64_t size, uint64_t key, bool excl) {
    const int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | (excl ? O_EXCL : 0);
    const int fd = sc::openat(AT_FDCWD, path, flags, 0644);
    if (fd < 0) fail_errno(errno, "cannot create %s", path);
    write_content(fd, path, size, kCreateChunk, key);
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
