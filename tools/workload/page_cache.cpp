#include "page_cache.h"

#include "sys.h"
#include "util.h"

#include <sys/mman.h>
#include <sys/stat.h>

#include <cerrno>
#include <vector>

namespace wl {

int open_for_read(const char* path, int extra_flags) {
    const int fd = sc::openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC | extra_flags);
    if (fd < 0) fail_errno(errno, "cannot open %s%s", path, (extra_flags & O_DIRECT) ? " with O_DIRECT" : "");
    return fd;
}

uint64_t regular_file_size(int fd, const char* path) {
    struct stat st;
    if (sc::fstat(fd, &st) != 0) fail_errno(errno, "cannot fstat %s", path);
    if (!S_ISREG(st.st_mode)) fail("%s is not a regular file", path);
    return static_cast<uint64_t>(st.st_size);
}

uint64_t size_for_reads(int fd, const char* path, uint64_t read_size) {
    const uint64_t size = regular_file_size(fd, path);
    if (size < read_size)
        fail("%s holds %llu bytes, fewer than one --size %llu read", path,
             static_cast<unsigned long long>(size), static_cast<unsigned long long>(read_size));
    return size;
}

void pread_exact(int fd, uint8_t* buf, uint64_t size, uint64_t off, const char* path) {
    const ssize_t n = sc::pread64(fd, buf, size, static_cast<off_t>(off));
    if (n < 0)
        fail_errno(errno, "pread64(%s) at offset %llu failed", path, static_cast<unsigned long long>(off));
    if (static_cast<uint64_t>(n) != size)
        fail("pread64(%s) at offset %llu returned %zd of %llu bytes (did the file shrink?)", path,
             static_cast<unsigned long long>(off), n, static_cast<unsigned long long>(size));
}

const uint8_t* map_file(int fd, uint64_t size, const char* path) {
    void* map = sc::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED)
        fail_errno(errno, "cannot mmap %s (%llu bytes)", path, static_cast<unsigned long long>(size));
    return static_cast<const uint8_t*>(map);
}

void unmap_file(const uint8_t* map, uint64_t size, const char* path) {
    if (sc::munmap(const_cast<uint8_t*>(map), size) != 0) fail_errno(errno, "cannot munmap %s", path);
}

uint64_t resident_pages(const uint8_t* map, uint64_t size, const char* path) {
    const uint64_t pages = page_count(size);
    std::vector<unsigned char> vec(pages < kMincoreWindow ? pages : kMincoreWindow);
    uint64_t resident = 0;
    for (uint64_t first = 0; first < pages; first += kMincoreWindow) {
        const uint64_t n = pages - first < kMincoreWindow ? pages - first : kMincoreWindow;
        // The last window's length need not be a page multiple: mincore rounds
        // it up, as it does the file's partial last page.
        const uint64_t len = first + n == pages ? size - first * kPageSize : n * kPageSize;
        if (sc::mincore(const_cast<uint8_t*>(map) + first * kPageSize, len, vec.data()) != 0)
            fail_errno(errno, "mincore on the mapping of %s failed", path);
        for (uint64_t i = 0; i < n; ++i) resident += vec[i] & 1;
    }
    return resident;
}

void advise(int fd, uint64_t offset, uint64_t len, int advice, const char* what, const char* path) {
    if (sc::fadvise64(fd, static_cast<off_t>(offset), static_cast<off_t>(len), advice) != 0)
        fail_errno(errno, "fadvise64(%s, %s) failed", path, what);
}

}  // namespace wl
