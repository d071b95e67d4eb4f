#include "capture/signals.h"

#include <sys/signalfd.h>
#include <unistd.h>

#include <iterator>
#include <utility>

#include "util/errno_text.h"

namespace iolens::capture {

namespace {

constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
constexpr int kTaken[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
struct sigaction g_inherited[sizeof(kTaken) / sizeof(kTaken[0])];
bool g_taken = false;

sigset_t recorder_signals() {
    sigset_t set;
    sigemptyset(&set);
    for (int s : kStopSignals) sigaddset(&set, s);
    sigaddset(&set, SIGCHLD);
    return set;
}

}  // namespace

void take_signal_dispositions() {
    for (size_t i = 0; i < std::size(kTaken); ++i) {
        struct sigaction sa {};
        sa.sa_handler = kTaken[i] == SIGPIPE ? SIG_IGN : SIG_DFL;
        sigemptyset(&sa.sa_mask);
        sigaction(kTaken[i], &sa, &g_inherited[i]);
    }
    g_taken = true;
}

void restore_inherited_dispositions() {
    if (!g_taken) return;
    for (size_t i = 0; i < std::size(kTaken); ++i) sigaction(kTaken[i], &g_inherited[i], nullptr);
}

Result<SignalInbox> SignalInbox::open() {
    SignalInbox inbox;
    const sigset_t set = recorder_signals();
    sigprocmask(SIG_BLOCK, &set, &inbox.old_);
    inbox.restore_ = true;
    inbox.fd_.reset(signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
    if (!inbox.fd_) return errno_error("cannot create a signalfd");
    return inbox;
}

SignalInbox::SignalInbox(SignalInbox&& o) noexcept
    : old_(o.old_), fd_(std::move(o.fd_)), restore_(std::exchange(o.restore_, false)) {}

SignalInbox::~SignalInbox() {
    if (!restore_) return;
    // Drop anything still pending so it doesn't fire after we unblock.
    sigset_t pending;
    sigpending(&pending);
    struct timespec zero {};
    sigset_t ours;
    sigemptyset(&ours);
    for (int s : kStopSignals)
        if (sigismember(&pending, s)) sigaddset(&ours, s);
    while (sigtimedwait(&ours, nullptr, &zero) > 0) {
    }
    sigprocmask(SIG_SETMASK, &old_, nullptr);
}

bool SignalInbox::next(int& signo, int& code) {
    signalfd_siginfo si{};
    if (read(fd_.get(), &si, sizeof(si)) != sizeof(si)) return false;
    signo = static_cast<int>(si.ssi_signo);
    code = si.ssi_code;
    return true;
}

}  // namespace iolens::capture
