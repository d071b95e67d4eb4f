// The shared library of the call-site workload: a function of its own reads
// its own file (docs/call-sites.md, tests/privileged/call_sites_test.cpp).
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>

extern "C" __attribute__((noinline, visibility("default"))) uint64_t callsite_lib_read_gamma(const char* path,
                                                                                             int chunk) {
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char buf[65536];
    uint64_t total = 0;
    for (off_t off = 0;; off += chunk) {
        const ssize_t n = pread(fd, buf, static_cast<size_t>(chunk), off);
        if (n <= 0) break;
        total += static_cast<uint64_t>(n);
    }
    close(fd);
    return total;
}
