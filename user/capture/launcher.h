#pragma once
// Starts the command to trace, held at a gate: the child is forked, then waits
// before exec until the probes are live and its pid is tracked, so nothing it
// does is missed ("traced from its first instruction"). stdin/stdout/stderr
// are inherited untouched.
#include <sys/types.h>

#include <string>
#include <vector>

#include "util/result.h"

namespace iolens::capture {

class Launcher {
public:
    // Forks the child; it blocks until release() (or exits 127 if the
    // recorder goes away first).
    static Result<Launcher> fork_gated(const std::vector<std::string>& argv);
    Launcher(Launcher&&) noexcept;
    Launcher& operator=(Launcher&&) = delete;
    ~Launcher();  // kills a child that was never released

    pid_t pid() const { return pid_; }
    // Lets the child exec. Returns an Error if exec failed (the child then
    // exits 127 like a shell: "command not found" or "permission denied").
    Result<void> release();

private:
    Launcher() = default;
    pid_t pid_ = -1;
    int gate_fd_ = -1;   // write end: closing or writing lets the child go
    int error_fd_ = -1;  // read end: the child's exec errno, EOF on success
    bool released_ = false;
    std::string program_;
};

}  // namespace iolens::capture
