#include "capture/launcher.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "capture/signals.h"
#include "util/errno_text.h"

namespace iolens::capture {

namespace {

[[noreturn]] void child_main(const std::vector<std::string>& argv, int gate_rd, int error_wr) {
    // The recorder blocks these to read them from a signalfd, and sets some
    // dispositions of its own: the command starts with an empty mask and the
    // dispositions iolens was started with.
    restore_inherited_dispositions();
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    // If the recorder dies before releasing us, do not run untraced.
    prctl(PR_SET_PDEATHSIG, SIGKILL);

    char go = 0;
    ssize_t n;
    do {
        n = read(gate_rd, &go, 1);
    } while (n < 0 && errno == EINTR);
    if (n != 1) _exit(127);

    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    prctl(PR_SET_PDEATHSIG, 0);
    execvp(args[0], args.data());
    int err = errno;
    (void)!write(error_wr, &err, sizeof(err));
    _exit(err == ENOENT ? 127 : 126);
}

}  // namespace

Result<Launcher> Launcher::fork_gated(const std::vector<std::string>& argv) {
    if (argv.empty()) return make_error("no command given to trace");
    int gate[2], error[2];
    if (pipe2(gate, O_CLOEXEC) != 0) return errno_error("cannot create a pipe");
    if (pipe2(error, O_CLOEXEC) != 0) {
        close(gate[0]);
        close(gate[1]);
        return errno_error("cannot create a pipe");
    }
    pid_t pid = fork();
    if (pid < 0) {
        int err = errno;
        for (int fd : {gate[0], gate[1], error[0], error[1]}) close(fd);
        return errno_error("cannot fork", err);
    }
    if (pid == 0) child_main(argv, gate[0], error[1]);
    close(gate[0]);
    close(error[1]);
    Launcher l;
    l.pid_ = pid;
    l.gate_fd_ = gate[1];
    l.error_fd_ = error[0];
    l.program_ = argv[0];
    return l;
}

Launcher::Launcher(Launcher&& o) noexcept
    : pid_(o.pid_),
      gate_fd_(o.gate_fd_),
      error_fd_(o.error_fd_),
      released_(o.released_),
      program_(std::move(o.program_)) {
    o.pid_ = -1;
    o.gate_fd_ = -1;
    o.error_fd_ = -1;
}

Launcher::~Launcher() {
    if (pid_ > 0 && !released_) {
        kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
    }
    if (gate_fd_ >= 0) close(gate_fd_);
    if (error_fd_ >= 0) close(error_fd_);
}

Result<void> Launcher::release() {
    released_ = true;
    char go = 1;
    if (write(gate_fd_, &go, 1) != 1) return errno_error("cannot start the command");
    close(gate_fd_);
    gate_fd_ = -1;
    int err = 0;
    ssize_t n;
    do {
        n = read(error_fd_, &err, sizeof(err));
    } while (n < 0 && errno == EINTR);
    close(error_fd_);
    error_fd_ = -1;
    if (n == sizeof(err)) {
        if (err == ENOENT) return make_error(program_ + ": command not found");
        return errno_error(program_ + ": cannot execute", err);
    }
    return {};
}

}  // namespace iolens::capture
