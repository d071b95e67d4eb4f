// attach-target: a process to attach a tracer to (iolens record -p PID).
//
// Setup (before "ready", so an attached tracer never sees it): make sure F
// exists with at least `size` bytes. Then print "<pid> ready" and sleep in
// sigwait() until SIGUSR1: the test attaches, then sends the signal. After it,
// the parent only forks C children and waits; each child makes exactly one
// openat, K pread64 of `size` bytes at offset 0 and one close.
// --own-reads N: then the parent itself makes one openat, N pread64 and one
// close, prints "<pid> done" and waits for a second SIGUSR1 before exiting:
// a traced process still alive, holding nothing but finished calls, when the
// tracer stops.
#include "args.h"
#include "dataset.h"
#include "modes.h"
#include "sys.h"
#include "util.h"

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <vector>

namespace wl {

namespace {

void prepare_file(const char* path, uint64_t size) {
    const int fd = open_or_create(path, size, kSingleFileKey);
    struct stat st;
    if (sc::fstat(fd, &st) != 0) fail_errno(errno, "cannot fstat %s", path);
    if (static_cast<uint64_t>(st.st_size) < size)
        fail("%s holds %lld bytes, fewer than --size %llu: remove it to let attach-target recreate it", path,
             static_cast<long long>(st.st_size), static_cast<unsigned long long>(size));
    if (sc::close(fd) != 0) fail_errno(errno, "cannot close %s", path);
}

[[noreturn]] void reader_child(const char* path, uint64_t reads, uint64_t size, uint8_t* buf) {
    const int fd = sc::openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail_errno(errno, "child: cannot open %s", path);
    for (uint64_t i = 0; i < reads; ++i) {
        const ssize_t n = sc::pread64(fd, buf, size, 0);
        if (n < 0) fail_errno(errno, "child: pread64(%s) failed", path);
        if (static_cast<uint64_t>(n) != size) fail("child: %s became shorter than --size", path);
    }
    if (sc::close(fd) != 0) fail_errno(errno, "child: cannot close %s", path);
    _exit(kExitOk);
}

void wait_for_usr1(const sigset_t* set) {
    for (;;) {
        int sig = 0;
        const int err = sigwait(set, &sig);
        if (err == 0 && sig == SIGUSR1) return;
        if (err != 0 && err != EINTR) fail_errno(err, "sigwait failed");
    }
}

}  // namespace

int run_attach_target(int argc, char** argv) {
    const Args args(
        {{"file", true}, {"children", true}, {"reads", true}, {"size", true}, {"own-reads", true}}, argc,
        argv);
    const char* path = args.text("file");
    const uint64_t children = args.number("children", 0, 4096);
    const uint64_t reads = args.number("reads", 0, uint64_t{1} << 40);
    const uint64_t size = args.number_or("size", 4096, 1, uint64_t{1} << 30);
    const bool own = args.text_or("own-reads", nullptr) != nullptr;
    const uint64_t own_reads = args.number_or("own-reads", 0, 0, uint64_t{1} << 40);

    prepare_file(path, size);
    uint8_t* buf = alloc_aligned(size);

    // Block SIGUSR1 before announcing readiness: a signal sent the moment the
    // line is read then stays pending for sigwait() instead of killing us
    // (its default action) or being lost.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    if (sigprocmask(SIG_BLOCK, &set, nullptr) != 0) fail_errno(errno, "cannot block SIGUSR1");
    print_out("%d ready\n", static_cast<int>(getpid()));
    wait_for_usr1(&set);

    std::vector<pid_t> pids(children);
    for (auto& pid : pids) {
        pid = fork();
        if (pid < 0) fail_errno(errno, "cannot fork a reader child");
        if (pid == 0) reader_child(path, reads, size, buf);
    }
    for (const pid_t pid : pids) wait_for_success(pid, "a reader child");
    if (own) {
        const int fd = sc::openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) fail_errno(errno, "cannot open %s", path);
        for (uint64_t i = 0; i < own_reads; ++i)
            if (sc::pread64(fd, buf, size, 0) != static_cast<ssize_t>(size)) fail("pread64(%s) failed", path);
        if (sc::close(fd) != 0) fail_errno(errno, "cannot close %s", path);
        print_out("%d done\n", static_cast<int>(getpid()));
        wait_for_usr1(&set);
    }
    std::free(buf);
    return kExitOk;
}

}  // namespace wl
