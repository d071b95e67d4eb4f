// iolens-bench-floor: loads the floor probe (floor.bpf.c) on one process and
// prints its pread64 latency histogram and call count when the process ends.
// The benchmark (tools/bench/run) compares iolens's per-call cost with it.
//
//   iolens-bench-floor [-o FILE] -p PID       trace a running process until it exits (or Ctrl-C)
//   iolens-bench-floor [-o FILE] -- CMD ARGS  run CMD, traced from its first instruction
//
// Output (stdout, or FILE): one line per non-empty bucket "lo hi count", then
// "count=N missed=M" (missed: calls whose entry could not be timed).
// Exit status: CMD's (128+signal if killed), 0 with -p, 1 on a failure.
#include "floor.skel.h"

#include <bpf/libbpf.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

constexpr int kBuckets = 64;

[[noreturn]] void die(const std::string& what) {
    std::fprintf(stderr, "iolens-bench-floor: %s\n", what.c_str());
    std::exit(1);
}

std::string errno_text(int err) {
    return std::string(strerrorname_np(err) ? strerrorname_np(err) : "?") + " (" +
           (strerrordesc_np(err) ? strerrordesc_np(err) : "unknown error") + ")";
}

struct SkelDeleter {
    void operator()(floor_bpf* s) const noexcept { floor_bpf__destroy(s); }
};
using Skel = std::unique_ptr<floor_bpf, SkelDeleter>;

struct Options {
    pid_t pid = 0;
    const char* out = nullptr;
    std::vector<char*> cmd;
};

void usage_exit() {
    std::fprintf(stderr, "usage: iolens-bench-floor [-o FILE] (-p PID | -- CMD [ARGS...])\n");
    std::exit(2);
}

Options parse(int argc, char** argv) {
    Options o;
    int i = 1;
    for (; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--") {
            ++i;
            break;
        }
        if ((a == "-p" || a == "-o") && i + 1 < argc) {
            if (a == "-p") {
                char* end = nullptr;
                const long v = std::strtol(argv[++i], &end, 10);
                if (*end || v <= 0) usage_exit();
                o.pid = static_cast<pid_t>(v);
            } else {
                o.out = argv[++i];
            }
            continue;
        }
        usage_exit();
    }
    for (; i < argc; ++i) o.cmd.push_back(argv[i]);
    if ((o.pid != 0) == !o.cmd.empty()) usage_exit();
    o.cmd.push_back(nullptr);
    return o;
}

// Open, set the target, load and attach. RLIMIT_MEMLOCK is not raised: this
// kernel accounts BPF memory to the memory cgroup, and libbpf 1.x only bumps
// the limit where the kernel still needs it.
Skel attach(pid_t tgid) {
    Skel skel(floor_bpf__open());
    if (!skel) die("cannot open the BPF object: " + errno_text(errno));
    skel->rodata->target_tgid = static_cast<uint32_t>(tgid);
    if (int err = floor_bpf__load(skel.get()))
        die("cannot load the floor probe: " + errno_text(-err) +
            "; it needs root (CAP_BPF, CAP_PERFMON) and BTF");
    if (int err = floor_bpf__attach(skel.get()))
        die("cannot attach to tp_btf sys_enter/sys_exit: " + errno_text(-err));
    return skel;
}

// Sum of one per-CPU u64 slot over every possible CPU.
uint64_t percpu_sum(bpf_map* map, uint32_t key, int ncpu) {
    std::vector<uint64_t> vals(static_cast<size_t>(ncpu));
    if (bpf_map__lookup_elem(map, &key, sizeof(key), vals.data(), vals.size() * sizeof(uint64_t), 0) != 0)
        die("cannot read map " + std::string(bpf_map__name(map)) + ": " + errno_text(errno));
    uint64_t sum = 0;
    for (uint64_t v : vals) sum += v;
    return sum;
}

void print_result(floor_bpf* skel, const char* out) {
    const int ncpu = libbpf_num_possible_cpus();
    if (ncpu <= 0) die("cannot count the possible CPUs");
    std::FILE* f = out ? std::fopen(out, "w") : stdout;
    if (!f) die(std::string("cannot write ") + out + ": " + errno_text(errno));
    uint64_t count = 0;
    for (uint32_t b = 0; b < kBuckets; ++b) {
        const uint64_t n = percpu_sum(skel->maps.hist, b, ncpu);
        if (n == 0) continue;
        count += n;
        const unsigned long long lo = b == 0 ? 0 : 1ULL << b;
        const unsigned long long hi = b == 63 ? ~0ULL : 1ULL << (b + 1);
        std::fprintf(f, "%llu %llu %llu\n", lo, hi, static_cast<unsigned long long>(n));
    }
    std::fprintf(f, "count=%llu missed=%llu\n", static_cast<unsigned long long>(count),
                 static_cast<unsigned long long>(percpu_sum(skel->maps.missed, 0, ncpu)));
    if (std::fflush(f) != 0 || (out && std::fclose(f) != 0))
        die(std::string("cannot write ") + (out ? out : "stdout") + ": " + errno_text(errno));
}

// Runs cmd held at a pipe until the probe is attached, so even its first
// calls are traced (the same gate iolens record uses).
int run_command(const Options& o) {
    int gate[2];
    if (pipe2(gate, O_CLOEXEC) != 0) die("pipe: " + errno_text(errno));
    const pid_t child = fork();
    if (child < 0) die("fork: " + errno_text(errno));
    if (child == 0) {
        close(gate[1]);
        char go = 0;
        // EOF without the byte means the loader failed: do not run untraced.
        if (read(gate[0], &go, 1) != 1) _exit(126);
        execvp(o.cmd[0], o.cmd.data());
        const int err = errno;
        std::fprintf(stderr, "iolens-bench-floor: cannot run %s: %s\n", o.cmd[0], errno_text(err).c_str());
        _exit(127);
    }
    close(gate[0]);
    Skel skel = attach(child);
    if (write(gate[1], "g", 1) != 1) die("cannot release the command: " + errno_text(errno));
    close(gate[1]);
    int status = 0;
    while (waitpid(child, &status, 0) < 0)
        if (errno != EINTR) die("waitpid: " + errno_text(errno));
    print_result(skel.get(), o.out);
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 128 + WTERMSIG(status);
}

// Traces a running process until it exits or we are told to stop.
int trace_pid(const Options& o) {
    const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, o.pid, 0));
    if (pidfd < 0) die("cannot watch pid " + std::to_string(o.pid) + ": " + errno_text(errno));
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    if (sigprocmask(SIG_BLOCK, &mask, nullptr) != 0) die("sigprocmask: " + errno_text(errno));
    const int sfd = signalfd(-1, &mask, SFD_CLOEXEC);
    if (sfd < 0) die("signalfd: " + errno_text(errno));
    Skel skel = attach(o.pid);
    std::fprintf(stderr, "iolens-bench-floor: tracing pid %d\n", o.pid);
    pollfd fds[2] = {{pidfd, POLLIN, 0}, {sfd, POLLIN, 0}};
    while (poll(fds, 2, -1) < 0)
        if (errno != EINTR) die("poll: " + errno_text(errno));
    print_result(skel.get(), o.out);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    return o.pid ? trace_pid(o) : run_command(o);
}
