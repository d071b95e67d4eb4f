// exit-code and kill-self: how a traced command ends. The tracer must end with
// the command's status: N for exit-code, and whatever it reports for death by
// a signal (conventionally 128+N) for kill-self. Neither makes a file syscall.
#include "args.h"
#include "modes.h"
#include "util.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>

namespace wl {

namespace {

// Signals whose default action is not to terminate: sending them would leave
// the process ignoring the signal or stopped, and the test waiting.
bool terminates_by_default(int sig) {
    switch (sig) {
        case SIGCHLD:
        case SIGCONT:
        case SIGSTOP:
        case SIGTSTP:
        case SIGTTIN:
        case SIGTTOU:
        case SIGURG:
        case SIGWINCH:
            return false;
        default:
            return sig >= 1 && sig <= SIGRTMAX;
    }
}

}  // namespace

int run_exit_code(int argc, char** argv) {
    const Args args({{"code", true}}, argc, argv);
    _exit(static_cast<int>(args.number("code", 0, 255)));
}

int run_kill_self(int argc, char** argv) {
    const Args args({{"signal", true}}, argc, argv);
    const int sig = static_cast<int>(args.number("signal", 1, static_cast<uint64_t>(SIGRTMAX)));
    if (!terminates_by_default(sig))
        fail_usage(
            "signal %d does not terminate a process by default; choose a terminating one (e.g. 9 or 15)",
            sig);

    // No core file: SIGSEGV, SIGABRT, SIGQUIT... would otherwise dump one,
    // which costs time and leaves a file behind. PR_SET_DUMPABLE=0 stops dumps
    // even when core_pattern pipes to a handler, which ignores RLIMIT_CORE.
    const struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);

    // The default action, unblocked, so the signal kills us however we were started.
    ::signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, nullptr);
    kill(getpid(), sig);
    fail("still alive after sending signal %d to itself", sig);
}

}  // namespace wl
