#include "util.h"

#include "sys.h"

#include <sys/wait.h>

#include <cerrno>
#include <csignal>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <unistd.h>

namespace wl {

namespace {

const char* g_context = nullptr;

// Messages are assembled in one buffer and written with a single write(2), so
// lines from concurrent processes do not interleave mid-line.
constexpr size_t kMessageMax = 2048;

size_t format_prefix(char* buf, size_t cap) {
    const int n = g_context ? std::snprintf(buf, cap, "iolens-workload %s: ", g_context)
                            : std::snprintf(buf, cap, "iolens-workload: ");
    return n < 0 ? 0 : static_cast<size_t>(n) < cap ? static_cast<size_t>(n) : cap - 1;
}

size_t append(char* buf, size_t used, size_t cap, const char* fmt, va_list ap) {
    if (used >= cap - 1) return used;
    const int n = std::vsnprintf(buf + used, cap - used, fmt, ap);
    if (n < 0) return used;
    return used + static_cast<size_t>(n) < cap ? used + static_cast<size_t>(n) : cap - 1;
}

size_t append_text(char* buf, size_t used, size_t cap, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    used = append(buf, used, cap, fmt, ap);
    va_end(ap);
    return used;
}

// Best effort: a failing stderr must not hide the exit status.
void emit_stderr(char* buf, size_t used, size_t cap) {
    if (used >= cap - 1) used = cap - 2;
    buf[used++] = '\n';
    size_t off = 0;
    while (off < used) {
        const ssize_t n = sc::write(STDERR_FILENO, buf + off, used - off);
        if (n <= 0) break;
        off += static_cast<size_t>(n);
    }
}

}  // namespace

void set_message_context(const char* mode) { g_context = mode; }

void fail(const char* fmt, ...) {
    char buf[kMessageMax];
    size_t used = format_prefix(buf, sizeof buf);
    va_list ap;
    va_start(ap, fmt);
    used = append(buf, used, sizeof buf, fmt, ap);
    va_end(ap);
    emit_stderr(buf, used, sizeof buf);
    _exit(kExitFailure);
}

void fail_errno(int err, const char* fmt, ...) {
    char buf[kMessageMax];
    size_t used = format_prefix(buf, sizeof buf);
    va_list ap;
    va_start(ap, fmt);
    used = append(buf, used, sizeof buf, fmt, ap);
    va_end(ap);
    // strerrordesc_np/strerrorname_np return fixed English text: unlike
    // strerror they never consult the message catalogues (no hidden opens).
    const char* desc = strerrordesc_np(err);
    const char* name = strerrorname_np(err);
    used = append_text(buf, used, sizeof buf, ": %s (%s)", desc ? desc : "unknown error",
                       name ? name : "?");
    emit_stderr(buf, used, sizeof buf);
    _exit(kExitFailure);
}

void fail_usage(const char* fmt, ...) {
    char buf[kMessageMax];
    size_t used = format_prefix(buf, sizeof buf);
    va_list ap;
    va_start(ap, fmt);
    used = append(buf, used, sizeof buf, fmt, ap);
    va_end(ap);
    used = append_text(buf, used, sizeof buf, "\n(run 'iolens-workload --help' for usage)");
    emit_stderr(buf, used, sizeof buf);
    _exit(kExitUsage);
}

void print_out(const char* fmt, ...) {
    char buf[kMessageMax];
    va_list ap;
    va_start(ap, fmt);
    const size_t used = append(buf, 0, sizeof buf, fmt, ap);
    va_end(ap);
    write_all(STDOUT_FILENO, buf, used, "stdout");
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
