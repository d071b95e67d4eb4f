#pragma once
// The recorder's signals: SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGCHLD are blocked and
// read from a signalfd by the event loop for as long as a SignalInbox lives;
// the mask (and nothing pending of ours) is restored when it goes.
#include <signal.h>

#include "util/fd.h"
#include "util/result.h"

namespace iolens::capture {

// Once, first thing in main: remembers the dispositions iolens inherited and
// sets those it needs. SIGPIPE is ignored (a closed stdout, `| head`, must not
// kill the recorder and abandon the job); SIGINT, SIGTERM, SIGHUP and SIGQUIT
// go back to their defaults, since a shell starts a background job with
// SIGINT and SIGQUIT ignored and an ignored signal never reaches a signalfd.
void take_signal_dispositions();
// In the child about to exec the traced command: the dispositions iolens
// inherited, so the command runs as it would have without iolens.
void restore_inherited_dispositions();

class SignalInbox {
public:
    static Result<SignalInbox> open();
    SignalInbox(SignalInbox&&) noexcept;
    SignalInbox& operator=(SignalInbox&&) = delete;
    ~SignalInbox();

    int fd() const { return fd_.get(); }
    // The next signal that arrived, false when none is waiting.
    bool next(int& signo, int& code);

private:
    SignalInbox() = default;
    sigset_t old_{};
    UniqueFd fd_;
    bool restore_ = false;
};

}  // namespace iolens::capture
