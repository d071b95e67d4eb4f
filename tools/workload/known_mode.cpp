// known: the main process of the exact-count scenario (known.h holds what its
// calls must add up to).
//
//   main      writes known.dat with every write-class call and every sync call,
//             forks child-a and exchanges pipe messages with it, forks the
//             exec-child, makes every stat-class call, maps known.dat, fails
//             one open, waits for both children, then lists the directory.
//   child-a   known_child_a.cpp: every read-class call and lseek.
//   exec-child known_exec_child.cpp: the same binary exec'd through
//             /proc/self/exe, so the tracer must follow an exec.
//
// Changing a call here changes a row of known.h: keep them in step (the
// privileged test tests/privileged/known_scenario_test.cpp says where they differ).
#include "args.h"
#include "known_calls.h"
#include "modes.h"
#include "sys.h"
#include "util.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace wl {

namespace {

using namespace known;

// Every write-class call and every sync-class call, all on one fd from creat().
// The writes lay down known.dat's final bytes; the positional ones rewrite
// ranges already written with the same bytes, so the content stays fixed.
void write_data_file(const std::string& path, const std::vector<uint8_t>& image) {
    auto* img = const_cast<uint8_t*>(image.data());  // iovec wants non-const; nothing writes through it
    const int fd = sc::creat(path.c_str(), 0644);
    if (fd < 0) fail_errno(errno, "creat(%s) failed", path.c_str());

    for (uint64_t i = 0; i < 16; ++i)  // [0, 65536)
        expect_ret(sc::write(fd, img + i * 4096, 4096), 4096, "write(known.dat, 4096)");
    for (uint64_t i = 0; i < 2; ++i) {  // [65536, 131072)
        const uint64_t base = 65536 + i * 32768;
        const struct iovec iov[3] = {
            {img + base, 8192}, {img + base + 8192, 16384}, {img + base + 24576, 8192}};
        expect_ret(sc::writev(fd, iov, 3), 32768, "writev(known.dat, 8192+16384+8192)");
    }
    for (const uint64_t off : {uint64_t{0}, uint64_t{32768}, uint64_t{65536}, uint64_t{126976}})
        expect_ret(sc::pwrite64(fd, img + off, 4096, static_cast<off_t>(off)), 4096,
                   "pwrite64(known.dat, 4096)");
    const struct iovec two[2] = {{img + 4096, 2048}, {img + 6144, 2048}};
    expect_ret(sc::pwritev(fd, two, 2, 4096), 4096, "pwritev(known.dat, 2048+2048 @ 4096)");
    const struct iovec one[1] = {{img + 8192, 4096}};
    expect_ret(sc::pwritev2(fd, one, 1, 8192, 0), 4096, "pwritev2(known.dat, 4096 @ 8192)");

    expect_ret(sc::fsync(fd), 0, "fsync(known.dat)");
    expect_ret(sc::fdatasync(fd), 0, "fdatasync(known.dat)");
    expect_ret(
        sc::sync_file_range(fd, 0, static_cast<off_t>(kDataSize),
                            SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER),
        0, "sync_file_range(known.dat)");
    expect_ret(sc::close(fd), 0, "close(known.dat)");
}

// The exec-child: this same binary again, so the tracer sees a fork then an
// exec. Executed through /proc/self/exe, so the kernel names it "exe" (comm).
[[noreturn]] void exec_child(const char* dir) {
    char opt[] = "--dir";
    char* const argv[] = {const_cast<char*>(kExecArgv0), const_cast<char*>(kExecMode), opt,
                          const_cast<char*>(dir), nullptr};
    execve("/proc/self/exe", argv, environ);
    fail_errno(errno, "cannot exec /proc/self/exe");
}

// Pipe traffic that a profiler must not count as file I/O: kPingPongRounds
// 8-byte writes and as many 8-byte reads on each side.
void ping_pong(int to_child, int from_child) {
    for (uint64_t i = 0; i < kPingPongRounds; ++i) {
        write_all(to_child, &i, sizeof i, "the pipe to child-a");
        uint64_t reply = 0;
        if (!read_exact(from_child, &reply, sizeof reply, "the pipe from child-a"))
            fail("child-a closed its pipe after %llu rounds", static_cast<unsigned long long>(i));
        if (reply != ~i) fail("child-a answered round %llu wrongly", static_cast<unsigned long long>(i));
    }
}

void expect_size(uint64_t got, const char* call) {
    if (got != kDataSize)
        fail("%s reports %llu bytes for known.dat, expected %llu", call, static_cast<unsigned long long>(got),
             static_cast<unsigned long long>(kDataSize));
}

// Every path-based stat-class call (fstat comes with the mapping below).
void stat_calls(const char* dir, const std::string& data) {
    struct stat st;
    struct statx stx;
    expect_ret(sc::stat(data.c_str(), &st), 0, "stat(known.dat)");
    expect_size(static_cast<uint64_t>(st.st_size), "stat");
    expect_ret(sc::lstat(data.c_str(), &st), 0, "lstat(known.dat)");
    expect_size(static_cast<uint64_t>(st.st_size), "lstat");
    expect_ret(sc::newfstatat(AT_FDCWD, data.c_str(), &st, 0), 0, "newfstatat(known.dat)");
    expect_size(static_cast<uint64_t>(st.st_size), "newfstatat");
    expect_ret(sc::statx(AT_FDCWD, data.c_str(), 0, STATX_BASIC_STATS, &stx), 0, "statx(known.dat)");
    expect_size(stx.stx_size, "statx");
    expect_ret(sc::access(data.c_str(), R_OK), 0, "access(known.dat, R_OK)");
    expect_ret(sc::faccessat(AT_FDCWD, dir, X_OK), 0, "faccessat(D, X_OK)");
    expect_ret(sc::faccessat2(AT_FDCWD, data.c_str(), R_OK, AT_EACCESS), 0,
               "faccessat2(known.dat, R_OK, AT_EACCESS) (needs Linux >= 5.8)");
}

// open (the legacy syscall), fstat, a file-backed mmap whose pages are then
// read through page faults (no read syscalls), close.
void map_data_file(const std::string& data, const std::vector<uint8_t>& image) {
    const int fd = sc::open(data.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail_errno(errno, "open(%s) failed", data.c_str());
    struct stat st;
    expect_ret(sc::fstat(fd, &st), 0, "fstat(known.dat)");
    expect_size(static_cast<uint64_t>(st.st_size), "fstat");
    void* map = sc::mmap(nullptr, kDataSize, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) fail_errno(errno, "mmap(known.dat) failed");
    expect_content(image, map, kDataSize, 0, "mmap(known.dat)");
    if (munmap(map, kDataSize) != 0) fail_errno(errno, "munmap(known.dat) failed");
    expect_ret(sc::close(fd), 0, "close(known.dat)");
}

// The linux_dirent64 header that precedes each name getdents64 returns.
struct DirentHeader {
    uint64_t ino;
    int64_t off;
    uint16_t reclen;
    uint8_t type;
};
constexpr size_t kDirentNameOffset = 19;

// openat2 on D, getdents64 until it returns 0, close. D must hold nothing but
// known.dat: its listing (and so the byte count) is part of the table.
void list_directory(const char* dir) {
    struct open_how how;
    std::memset(&how, 0, sizeof how);
    how.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
    const int fd = sc::openat2(AT_FDCWD, dir, how);
    if (fd < 0) fail_errno(errno, "openat2(%s) failed (needs Linux >= 5.6)", dir);

    alignas(8) static char buf[32768];
    const long n = sc::getdents64(fd, buf, sizeof buf);
    if (n < 0) fail_errno(errno, "getdents64(%s) failed", dir);
    for (long pos = 0; pos < n;) {
        DirentHeader h;
        std::memcpy(&h, buf + pos, sizeof h);
        const char* name = buf + pos + kDirentNameOffset;
        if (std::strcmp(name, ".") != 0 && std::strcmp(name, "..") != 0 && std::strcmp(name, kDataName) != 0)
            fail("%s holds '%s': known mode needs a directory of its own (remove it or pass another --dir)",
                 dir, name);
        pos += h.reclen;
    }
    // ".", ".." and "known.dat": 24 + 24 + 32 bytes (each record is
    // 19 header bytes + name + NUL, rounded up to 8).
    expect_ret(n, 80, "getdents64(D) (first call)");
    expect_ret(sc::getdents64(fd, buf, sizeof buf), 0, "getdents64(D) (second call)");
    expect_ret(sc::close(fd), 0, "close(D)");
}

void close_or_fail(int fd, const char* what) {
    if (sc::close(fd) != 0) fail_errno(errno, "cannot close %s", what);
}

}  // namespace

int run_known(int argc, char** argv) {
    const Args args({{"dir", true}}, argc, argv);
    const char* dir = args.text("dir");
    const std::string data = path_in(dir, kDataName);
    const std::string missing = path_in(dir, kMissingName);
    const std::vector<uint8_t> image = data_image();

    if (::mkdir(dir, 0755) != 0 && errno != EEXIST) fail_errno(errno, "cannot create directory %s", dir);
    write_data_file(data, image);

    int down[2];  // main -> child-a
    int up[2];    // child-a -> main
    if (pipe2(down, O_CLOEXEC) != 0 || pipe2(up, O_CLOEXEC) != 0) fail_errno(errno, "cannot create pipes");
    const pid_t child_a = fork();
    if (child_a < 0) fail_errno(errno, "cannot fork child-a");
    if (child_a == 0) child_a_main(dir, image, ChildAPipes{down[0], up[1], down[1], up[0]});
    close_or_fail(down[0], "a pipe");
    close_or_fail(up[1], "a pipe");

    const pid_t exec_pid = fork();
    if (exec_pid < 0) fail_errno(errno, "cannot fork the exec-child");
    if (exec_pid == 0) exec_child(dir);

    ping_pong(down[1], up[0]);
    close_or_fail(down[1], "a pipe");
    close_or_fail(up[0], "a pipe");

    stat_calls(dir, data);
    map_data_file(data, image);
    expect_errno(sc::openat(AT_FDCWD, missing.c_str(), O_RDONLY | O_CLOEXEC), ENOENT,
                 "openat(does-not-exist)");

    wait_for_success(child_a, "child-a");
    wait_for_success(exec_pid, "the exec-child");
    list_directory(dir);  // after the children: nothing can change D any more
    return kExitOk;
}

}  // namespace wl
