#pragma once
// Helpers for the privileged end-to-end tests: run iolens and the workload
// generator as real processes, and read back what iolens reported.
#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace iolens::test {

struct RunResult {
    int exit_status = -1;  // shell convention: 128+N when killed by signal N
    std::string out;       // stdout
    std::string err;       // stderr
};

// Runs argv to completion, capturing stdout and stderr.
RunResult run(const std::vector<std::string>& argv);

// A process started in the background with stdout and stderr captured through
// pipes; lines can be awaited on either.
class Background {
public:
    explicit Background(const std::vector<std::string>& argv);
    ~Background();  // kills and reaps the process if still running
    pid_t pid() const { return pid_; }
    // Reads stdout (or stderr) until a line containing `needle` arrives, or the
    // timeout passes; returns whether it did.
    bool wait_for_line(bool on_stderr, const std::string& needle, int timeout_ms);
    RunResult wait();  // reads everything and reaps

private:
    pid_t pid_ = -1;
    int out_fd_ = -1, err_fd_ = -1;
    std::string out_, err_;
    bool reaped_ = false;
    int status_ = -1;
};

// A fresh directory under /tmp, removed with its contents on destruction.
class TempDir {
public:
    TempDir();
    ~TempDir();
    const std::string& path() const { return path_; }
    std::string operator/(const std::string& name) const { return path_ + "/" + name; }

private:
    std::string path_;
};

nlohmann::json load_json(const std::string& path);
// Files in a report that some syscall touched. (A report also lists files seen
// only through page faults, such as an executable the kernel maps at exec:
// whether that happens depends on what is cached.)
size_t files_with_syscalls(const nlohmann::json& report);
const char* iolens_bin();
const char* workload_bin();
bool is_root();
// Number of iolens's BPF programs loaded in the kernel right now, found by
// name (walks BPF_PROG_GET_NEXT_ID; no bpftool needed).
size_t loaded_iolens_programs();
// Waits until no iolens program is loaded; false if some still are after
// timeout_ms (the kernel releases a dead process's programs asynchronously).
bool no_iolens_programs_within(int timeout_ms);
// The first child of pid (from /proc), or -1.
pid_t child_of(pid_t pid);

}  // namespace iolens::test
