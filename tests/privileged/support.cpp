#include "support.h"

#include <fcntl.h>
#include <linux/bpf.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace iolens::test {

namespace {

pid_t spawn(const std::vector<std::string>& argv, int& out_fd, int& err_fd) {
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
    pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        dup2(out[1], 1);
        dup2(err[1], 2);
        int devnull = open("/dev/null", O_RDONLY);
        dup2(devnull, 0);
        std::vector<char*> args;
        for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        execvp(args[0], args.data());
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    out_fd = out[0];
    err_fd = err[0];
    return pid;
}

int to_shell_status(int st) {
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
    return -1;
}

// Reads whatever is available from fd into s; returns false at EOF.
bool drain(int fd, std::string& s) {
    char buf[65536];
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n > 0) {
        s.append(buf, static_cast<size_t>(n));
        return true;
    }
    return n < 0 && errno == EINTR;
}

long now_ms() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

}  // namespace

RunResult run(const std::vector<std::string>& argv) {
    Background bg(argv);
    return bg.wait();
}

Background::Background(const std::vector<std::string>& argv) { pid_ = spawn(argv, out_fd_, err_fd_); }

Background::~Background() {
    if (!reaped_ && pid_ > 0) {
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
    }
    if (out_fd_ >= 0) close(out_fd_);
    if (err_fd_ >= 0) close(err_fd_);
}

bool Background::wait_for_line(bool on_stderr, const std::string& needle, int timeout_ms) {
    std::string& s = on_stderr ? err_ : out_;
    int fd = on_stderr ? err_fd_ : out_fd_;
    const long deadline = now_ms() + timeout_ms;
    while (s.find(needle) == std::string::npos) {
        long left = deadline - now_ms();
        if (left <= 0 || fd < 0) return false;
        pollfd p{fd, POLLIN, 0};
        if (poll(&p, 1, static_cast<int>(left)) > 0 && !drain(fd, s))
            return s.find(needle) != std::string::npos;
    }
    return true;
}

RunResult Background::wait() {
    pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
    bool open_out = true, open_err = true;
    while (open_out || open_err) {
        fds[0].fd = open_out ? out_fd_ : -1;
        fds[1].fd = open_err ? err_fd_ : -1;
        if (poll(fds, 2, -1) < 0 && errno != EINTR) break;
        if (open_out && (fds[0].revents & (POLLIN | POLLHUP))) open_out = drain(out_fd_, out_);
        if (open_err && (fds[1].revents & (POLLIN | POLLHUP))) open_err = drain(err_fd_, err_);
    }
    int st = 0;
    waitpid(pid_, &st, 0);
    reaped_ = true;
    status_ = to_shell_status(st);
    return RunResult{status_, out_, err_};
}

TempDir::TempDir() {
    char tmpl[] = "/tmp/iolens-test-XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
}

TempDir::~TempDir() {
    // IOLENS_TEST_KEEP=1 keeps the directories (to read a failed test's recording).
    if (const char* keep = std::getenv("IOLENS_TEST_KEEP"); keep && std::string(keep) == "1") return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
}

nlohmann::json load_json(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    return nlohmann::json::parse(in);
}

size_t files_with_syscalls(const nlohmann::json& report) {
    size_t n = 0;
    for (const auto& f : report["files"]) {
        uint64_t calls = 0;
        for (const auto& [op, stats] : f["ops"].items()) calls += stats["calls"].get<uint64_t>();
        n += calls > 0;
    }
    return n;
}

const char* iolens_bin() { return IOLENS_BIN; }
const char* workload_bin() { return IOLENS_WORKLOAD_BIN; }
bool is_root() { return geteuid() == 0; }

size_t loaded_iolens_programs() {
    // The program names in bpf/*.bpf.c all start with one of these (the
    // kernel keeps 15 characters of a name).
    static const char* const kPrefixes[] = {"sys_enter_",  "sys_exit_",   "sched_fork_",
                                            "sched_exec_", "sched_exit_", "sched_switch_",
                                            "pc_",         "blk_",        "drain_"};
    size_t n = 0;
    union bpf_attr attr;
    std::memset(&attr, 0, sizeof(attr));
    while (syscall(SYS_bpf, BPF_PROG_GET_NEXT_ID, &attr, sizeof(attr)) == 0) {
        const uint32_t id = attr.next_id;
        union bpf_attr get;
        std::memset(&get, 0, sizeof(get));
        get.prog_id = id;
        int fd = static_cast<int>(syscall(SYS_bpf, BPF_PROG_GET_FD_BY_ID, &get, sizeof(get)));
        if (fd >= 0) {
            bpf_prog_info info;
            std::memset(&info, 0, sizeof(info));
            union bpf_attr q;
            std::memset(&q, 0, sizeof(q));
            q.info.bpf_fd = static_cast<uint32_t>(fd);
            q.info.info_len = sizeof(info);
            q.info.info = reinterpret_cast<uint64_t>(&info);
            if (syscall(SYS_bpf, BPF_OBJ_GET_INFO_BY_FD, &q, sizeof(q)) == 0)
                for (const char* prefix : kPrefixes)
                    if (std::strncmp(info.name, prefix, std::strlen(prefix)) == 0) n++;
            close(fd);
        }
        std::memset(&attr, 0, sizeof(attr));
        attr.start_id = id;
    }
    return n;
}

bool no_iolens_programs_within(int timeout_ms) {
    const long deadline = now_ms() + timeout_ms;
    while (loaded_iolens_programs() != 0) {
        if (now_ms() >= deadline) return false;
        usleep(20'000);
    }
    return true;
}

pid_t child_of(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
    long child = -1;
    in >> child;
    return static_cast<pid_t>(child);
}

}  // namespace iolens::test
