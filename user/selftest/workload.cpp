#include "selftest/workload.h"

#include <fcntl.h>
#include <linux/io_uring.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "selftest/scenario.h"
#include "selftest/uring.h"
#include "util/errno_text.h"

namespace iolens::selftest {

namespace {

// The workers' buffer lives in .bss: allocating it after fork would be an
// anonymous mmap (not counted, but not ours to rely on either).
alignas(4096) char g_buf[1 << 20];

struct Pipes {
    int to_worker[2] = {-1, -1};    // driver writes, worker reads
    int from_worker[2] = {-1, -1};  // worker writes, driver reads
};

// A worker that fails says so on stderr and exits 1; the self-test then
// reports the workload as failed instead of comparing counts.
[[noreturn]] void die(char role, const char* what) {
    char msg[256];
    int n = std::snprintf(msg, sizeof(msg), "iolens self-test worker %c: %s: %s\n", role, what,
                          errno_text().c_str());
    (void)!write(2, msg, static_cast<size_t>(n));
    _exit(1);
}

// Moves exactly n bytes through a pipe (a pipe read may return less).
bool read_full(int fd, char* p, size_t n) {
    while (n) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        p += r;
        n -= static_cast<size_t>(r);
    }
    return true;
}

void pipe_in(char role, const Pipes& p, uint64_t messages, uint64_t size) {
    for (uint64_t i = 0; i < messages; i++)
        if (!read_full(p.to_worker[0], g_buf, size)) die(role, "reading the driver's pipe");
}

void pipe_out(char role, const Pipes& p, uint64_t messages, uint64_t size) {
    std::memset(g_buf, role, size);
    for (uint64_t i = 0; i < messages; i++)
        if (write(p.from_worker[1], g_buf, size) != static_cast<ssize_t>(size))
            die(role, "writing the driver's pipe");
}

void close_pipes(char role, const Pipes& p) {
    if (close(p.to_worker[0]) != 0 || close(p.from_worker[1]) != 0) die(role, "closing its pipe ends");
}

// D's plan: out_<role>.bin written and read back through one io_uring. A
// process that cannot make a ring (the self-test then judges none of D's
// figures) skips it.
void ring_worker(const std::string& dir, const WorkerPlan& w) {
    MiniRing ring;
    if (!ring.open()) return;
    const std::string name = out_file(w.role);
    int fd = open((dir + "/" + name).c_str(), O_RDWR | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) die(w.role, ("creating " + name).c_str());
    std::memset(g_buf, w.role, w.write_size);
    for (uint64_t i = 0; i < w.write_count; i++) {
        const int32_t n =
            ring.rw(IORING_OP_WRITE, fd, g_buf, static_cast<uint32_t>(w.write_size), i * w.write_size);
        if (n != static_cast<int32_t>(w.write_size)) {
            errno = n < 0 ? -n : EIO;
            die(w.role, ("io_uring write of " + name).c_str());
        }
    }
    const uint64_t size = w.write_size * w.write_count;
    for (const auto& r : w.reads)
        for (uint64_t i = 0; i < r.count; i++) {
            const uint64_t off = (i * r.size * 5 + 512) % (size - r.size);
            const int32_t n = ring.rw(IORING_OP_READ, fd, g_buf, static_cast<uint32_t>(r.size), off);
            if (n != static_cast<int32_t>(r.size)) {
                errno = n < 0 ? -n : EIO;
                die(w.role, ("io_uring read of " + name).c_str());
            }
        }
    if (fsync(fd) != 0) die(w.role, ("fsync of " + name).c_str());
    if (close(fd) != 0) die(w.role, ("closing " + name).c_str());
    if (!ring.close()) die(w.role, "closing its io_uring");
}

// Does the worker's plan, syscall by syscall: each one below is a figure of
// selftest/scenario.cpp's expected(), which reads the same plan.
[[noreturn]] void worker(const std::string& dir, const WorkerPlan& w, const Pipes& p) {
    pipe_in(w.role, p, w.pipe_messages, w.pipe_message_size);
    if (w.via_io_uring) {
        ring_worker(dir, w);
        pipe_out(w.role, p, w.pipe_messages, w.pipe_message_size);
        close_pipes(w.role, p);
        _exit(0);
    }
    const std::string name = w.file;
    int fd = open((dir + "/" + name).c_str(), O_RDONLY);
    if (fd < 0) die(w.role, ("opening " + name).c_str());
    if (w.stat_and_rewind) {
        struct stat st {};
        if (fstat(fd, &st) != 0) die(w.role, ("fstat of " + name).c_str());
        if (lseek(fd, 0, SEEK_SET) != 0) die(w.role, ("lseek on " + name).c_str());
    }
    for (const auto& r : w.reads) {
        for (uint64_t i = 0; i < r.count; i++) {
            // Odd offsets for pread, inside the first MiB (the file has 4).
            ssize_t n = r.positional ? pread(fd, g_buf, r.size, static_cast<off_t>(7 + i * 3 * r.size))
                                     : read(fd, g_buf, r.size);
            if (n != static_cast<ssize_t>(r.size)) die(w.role, ("short read of " + name).c_str());
        }
    }
    // The read at end of file asks for as much as the last run did.
    if (w.read_to_eof && read(fd, g_buf, w.reads.empty() ? sizeof(g_buf) : w.reads.back().size) != 0) {
        errno = EIO;
        die(w.role, (name + " is not the size the self-test wrote").c_str());
    }
    if (w.write_count > 0) {
        int out = open((dir + "/" + out_file(w.role)).c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out < 0) die(w.role, "creating its output file");
        std::memset(g_buf, w.role, w.write_size);
        for (uint64_t i = 0; i < w.write_count; i++)
            if (write(out, g_buf, w.write_size) != static_cast<ssize_t>(w.write_size))
                die(w.role, "writing its output file");
        if (fsync(out) != 0) die(w.role, "fsync of its output file");
        if (close(out) != 0) die(w.role, "closing its output file");
    }
    if (close(fd) != 0) die(w.role, ("closing " + name).c_str());
    pipe_out(w.role, p, w.pipe_messages, w.pipe_message_size);
    close_pipes(w.role, p);
    _exit(0);
}

struct Started {
    const WorkerPlan* plan;
    pid_t pid;
    Pipes pipes;
};

}  // namespace

int run_workload(const std::string& dir, int report_fd) {
    std::vector<Started> workers;
    bool ok = true;
    for (const auto& w : selftest::workers()) {
        Started s{&w, -1, {}};
        if (pipe(s.pipes.to_worker) != 0 || pipe(s.pipes.from_worker) != 0) {
            std::fprintf(stderr, "iolens self-test: cannot create a pipe: %s\n", errno_text().c_str());
            ok = false;
            break;
        }
        s.pid = fork();
        if (s.pid < 0) {
            std::fprintf(stderr, "iolens self-test: cannot fork: %s\n", errno_text().c_str());
            ok = false;
            break;
        }
        if (s.pid == 0) worker(dir, w, s.pipes);
        workers.push_back(s);
    }

    // Feed every worker, then drain what each sends back: pipe traffic in both
    // directions that iolens must not count as file I/O.
    static char msg[4096];
    for (auto& s : workers) {
        const uint64_t size = s.plan->pipe_message_size;
        std::memset(msg, 'd', size);
        for (uint64_t i = 0; i < s.plan->pipe_messages; i++)
            if (write(s.pipes.to_worker[1], msg, size) != static_cast<ssize_t>(size)) ok = false;
    }
    for (auto& s : workers)
        for (uint64_t i = 0; i < s.plan->pipe_messages; i++)
            if (!read_full(s.pipes.from_worker[0], msg, s.plan->pipe_message_size)) ok = false;

    std::string lines;
    for (auto& s : workers) {
        int st = 0;
        while (waitpid(s.pid, &st, 0) < 0 && errno == EINTR) {
        }
        int status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        ok = ok && status == 0;
        lines +=
            std::string(1, s.plan->role) + " " + std::to_string(s.pid) + " " + std::to_string(status) + "\n";
    }
    if (write(report_fd, lines.data(), lines.size()) != static_cast<ssize_t>(lines.size())) {
        std::fprintf(stderr, "iolens self-test: cannot report the worker pids: %s\n", errno_text().c_str());
        return 1;
    }
    return ok ? 0 : 1;
}

}  // namespace iolens::selftest
