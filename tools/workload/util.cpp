#include "util.h"

#include "sys.h"

#include <sys/wait.h>

#include <cerrno>
#include <csignal>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <unistd.h>

namespace wl {

namespace {

const char* g_context = nullptr;

// Messages are assembled in one buffer and written with a single write(2), so
// lines from concurrent processes do not interleave mid-line.
constexpr size_t kMessageMax = 2048;

// One message being assembled: "iolens-workload <mode>: " and what is added.
class Message {
public:
    Message(bool prefixed, const char* fmt, va_list ap) {
        if (prefixed) {
            const int n = g_context ? std::snprintf(buf_, sizeof buf_, "iolens-workload %s: ", g_context)
                                    : std::snprintf(buf_, sizeof buf_, "iolens-workload: ");
            used_ = n < 0 ? 0 : clamp(static_cast<size_t>(n));
        }
        append(fmt, ap);
    }

    void append(const char* fmt, va_list ap) {
        if (used_ >= sizeof buf_ - 1) return;
        const int n = std::vsnprintf(buf_ + used_, sizeof buf_ - used_, fmt, ap);
        if (n >= 0) used_ = clamp(used_ + static_cast<size_t>(n));
    }
    void add(const char* fmt, ...) __attribute__((format(printf, 2, 3))) {
        va_list ap;
        va_start(ap, fmt);
        append(fmt, ap);
        va_end(ap);
    }

    const char* text() const { return buf_; }
    size_t size() const { return used_; }

    // The message as one line on stderr, then _exit(status). Best effort: a
    // failing stderr must not hide the exit status.
    [[noreturn]] void die(int status) {
        if (used_ >= sizeof buf_ - 1) used_ = sizeof buf_ - 2;
        buf_[used_++] = '\n';
        size_t off = 0;
        while (off < used_) {
            const ssize_t n = sc::write(STDERR_FILENO, buf_ + off, used_ - off);
            if (n <= 0) break;
            off += static_cast<size_t>(n);
        }
        _exit(status);
    }

private:
    size_t clamp(size_t n) const { return n < sizeof buf_ ? n : sizeof buf_ - 1; }

    char buf_[kMessageMax];
    size_t used_ = 0;
};

}  // namespace

void set_message_context(const char* mode) { g_context = mode; }

void fail(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    Message m(true, fmt, ap);
    va_end(ap);
    m.die(kExitFailure);
}

void fail_errno(int err, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    Message m(true, fmt, ap);
    va_end(ap);
    // strerrordesc_np/strerrorname_np return fixed English text: unlike
    // strerror they never consult the message catalogues (no hidden opens).
    const char* desc = strerrordesc_np(err);
    const char* name = strerrorname_np(err);
    m.add(": %s (%s)", desc ? desc : "unknown error", name ? name : "?");
    m.die(kExitFailure);
}

void fail_usage(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    Message m(true, fmt, ap);
    va_end(ap);
    m.add("\n(run 'iolens-workload --help' for usage)");
    m.die(kExitUsage);
}

void print_out(const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    const Message m(false, fmt, ap);
    va_end(ap);
    write_all(STDOUT_FILENO, m.text(), m.size(), "stdout");
}

void write_all(int fd, const void* buf, size_t len, const char* what) {
    const auto* p = static_cast<const char*>(buf);
    while (len > 0) {
        const ssize_t n = sc::write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail_errno(errno, "cannot write to %s", what);
        }
        p += n;
        len -= static_cast<size_t>(n);
    }
}

bool read_exact(int fd, void* buf, size_t len, const char* what) {
    auto* p = static_cast<char*>(buf);
    size_t got = 0;
    while (got < len) {
        const ssize_t n = sc::read(fd, p + got, len - got);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail_errno(errno, "cannot read from %s", what);
        }
        if (n == 0) {
            if (got == 0) return false;
            fail("%s ended in the middle of a message (%zu of %zu bytes)", what, got, len);
        }
        got += static_cast<size_t>(n);
    }
    return true;
}

uint64_t monotonic_ns() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

uint64_t process_cpu_ns() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

void busy_wait_ns(uint64_t ns) {
    if (ns == 0) return;
    const uint64_t end = monotonic_ns() + ns;
    while (monotonic_ns() < end) {
    }
}

uint8_t* alloc_aligned(uint64_t size) {
    void* p = nullptr;
    if (posix_memalign(&p, 4096, size) != 0)
        fail("cannot allocate a %llu-byte buffer", static_cast<unsigned long long>(size));
    return static_cast<uint8_t*>(p);
}

void wait_for_success(pid_t pid, const char* who) {
    int status = 0;
    for (;;) {
        if (waitpid(pid, &status, 0) == pid) break;
        if (errno != EINTR) fail_errno(errno, "cannot wait for %s (pid %d)", who, static_cast<int>(pid));
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
    if (WIFEXITED(status))
        fail("%s (pid %d) exited with status %d", who, static_cast<int>(pid), WEXITSTATUS(status));
    if (WIFSIGNALED(status))
        fail("%s (pid %d) was killed by signal %d (%s)", who, static_cast<int>(pid), WTERMSIG(status),
             sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?");
    fail("%s (pid %d) ended with wait status 0x%x", who, static_cast<int>(pid), status);
}

}  // namespace wl
