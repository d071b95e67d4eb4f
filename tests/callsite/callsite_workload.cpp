// iolens-callsite-workload DIR: distinct functions read distinct files, so a
// recording with --stacks must name each function against exactly the bytes
// it read (tests/privileged/call_sites_test.cpp):
//   demo::make_files         writes alpha.bin (1 MiB), beta.bin (3 MiB), gamma.bin (2 MiB)
//   demo::read_alpha         reads alpha.bin, 4 KiB preads, on the main thread
//   demo::read_beta          reads beta.bin, 16 KiB reads, on a second thread
//   callsite_lib_read_gamma  (libiolens_callsite_lib.so) reads gamma.bin, 8 KiB preads
// Built with frame pointers (the kernel's user stack walk follows them).
// Prints "read alpha=N beta=N gamma=N".
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

extern "C" uint64_t callsite_lib_read_gamma(const char* path, int chunk);

namespace demo {

__attribute__((noinline)) bool make_files(const std::string& dir) {
    const std::vector<std::pair<std::string, size_t>> files = {
        {"alpha.bin", 1u << 20}, {"beta.bin", 3u << 20}, {"gamma.bin", 2u << 20}};
    std::vector<char> block(1u << 16, 'x');
    for (const auto& [name, size] : files) {
        const int fd = open((dir + "/" + name).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) return false;
        for (size_t done = 0; done < size; done += block.size())
            if (write(fd, block.data(), block.size()) != static_cast<ssize_t>(block.size())) return false;
        close(fd);
    }
    return true;
}

__attribute__((noinline)) uint64_t read_alpha(const std::string& path) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char buf[4096];
    uint64_t total = 0;
    for (off_t off = 0;; off += sizeof buf) {
        const ssize_t n = pread(fd, buf, sizeof buf, off);
        if (n <= 0) break;
        total += static_cast<uint64_t>(n);
    }
    close(fd);
    return total;
}

__attribute__((noinline)) uint64_t read_beta(const std::string& path) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    std::vector<char> buf(16384);
    uint64_t total = 0;
    for (;;) {
        const ssize_t n = read(fd, buf.data(), buf.size());
        if (n <= 0) break;
        total += static_cast<uint64_t>(n);
    }
    close(fd);
    return total;
}

}  // namespace demo

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: iolens-callsite-workload DIR\n");
        return 2;
    }
    const std::string dir = argv[1];
    if (!demo::make_files(dir)) {
        std::perror("make_files");
        return 1;
    }
    uint64_t beta = 0;
    std::thread t([&] { beta = demo::read_beta(dir + "/beta.bin"); });
    const uint64_t alpha = demo::read_alpha(dir + "/alpha.bin");
    t.join();
    const uint64_t gamma = callsite_lib_read_gamma((dir + "/gamma.bin").c_str(), 8192);
    std::printf("read alpha=%llu beta=%llu gamma=%llu\n", static_cast<unsigned long long>(alpha),
                static_cast<unsigned long long>(beta), static_cast<unsigned long long>(gamma));
    return 0;
}
