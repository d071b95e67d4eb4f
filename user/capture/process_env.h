#pragma once
// Reads chosen environment variables of a process from /proc/PID/environ.
// Only the names asked for are ever kept: a job's environment may hold
// secrets (tokens, passwords) that must not end up in a recording.
#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace iolens::capture {

std::map<std::string, std::string> read_env_vars(pid_t pid, const std::vector<std::string>& names);

}  // namespace iolens::capture
