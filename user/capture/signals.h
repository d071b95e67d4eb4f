#pragma once
// The recorder's signals: SIGINT, SIGTERM, SIGHUP and SIGCHLD are blocked and
// read from a signalfd by the event loop for as long as a SignalInbox lives;
// the mask (and nothing pending of ours) is restored when it goes.
#include <signal.h>

#include "util/fd.h"
#include "util/result.h"

namespace iolens::capture {

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
