#include "capture/process_scan.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <signal.h>

#include <cerrno>
#include <cstdlib>
#include <fcntl.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace iolens::capture {

namespace {

// /proc/PID/stat: "pid (comm) state ppid pgrp session tty_nr tpgid flags ...";
// comm may contain spaces and ')'.
bool read_stat(pid_t pid, std::string& comm, pid_t& ppid, unsigned long* flags = nullptr) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(in, line)) return false;
    auto open = line.find('(');
    auto close = line.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close < open) return false;
    comm = line.substr(open + 1, close - open - 1);
    std::istringstream rest(line.substr(close + 1));
    char state;
    rest >> state >> ppid;
    if (flags) {
        long skip;
        rest >> skip >> skip >> skip >> skip >> *flags;
    }
    return static_cast<bool>(rest);
}

}  // namespace

bool is_kernel_thread(pid_t pid, std::string& comm) {
    constexpr unsigned long kPfKthread = 0x00200000;  // PF_KTHREAD, include/linux/sched.h
    pid_t ppid = 0;
    unsigned long flags = 0;
    return read_stat(pid, comm, ppid, &flags) && (flags & kPfKthread);
}

bool process_exists(pid_t pid) {
    if (pid <= 0 || (kill(pid, 0) != 0 && errno != EPERM)) return false;
    // A zombie (exited, not yet reaped by its parent) does nothing more.
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(in, line)) return false;
    const auto close = line.rfind(')');
    return close == std::string::npos || close + 2 >= line.size() || line[close + 2] != 'Z';
}

std::vector<pid_t> process_tree(pid_t root) {
    std::multimap<pid_t, pid_t> children;
    if (DIR* d = opendir("/proc")) {
        while (dirent* e = readdir(d)) {
            char* end = nullptr;
            long pid = std::strtol(e->d_name, &end, 10);
            if (*end != 0 || pid <= 0) continue;
            std::string comm;
            pid_t ppid = 0;
            if (read_stat(static_cast<pid_t>(pid), comm, ppid))
                children.emplace(ppid, static_cast<pid_t>(pid));
        }
        closedir(d);
    }
    std::vector<pid_t> out;
    if (!process_exists(root)) return out;
    out.push_back(root);
    for (size_t i = 0; i < out.size(); i++) {
        auto [lo, hi] = children.equal_range(out[i]);
        for (auto it = lo; it != hi; ++it) out.push_back(it->second);
    }
    return out;
}

std::optional<recording::ProcessInfo> read_process(pid_t pid) {
    recording::ProcessInfo info;
    pid_t ppid = 0;
    if (!read_stat(pid, info.comm, ppid)) return std::nullopt;
    info.pid = static_cast<uint32_t>(pid);
    info.ppid = static_cast<uint32_t>(ppid);
    std::ifstream cmd("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
    std::string arg;
    while (std::getline(cmd, arg, '\0')) info.cmdline.push_back(arg);
    return info;
}

std::vector<OpenFile> open_files(pid_t pid, bool skip_cloexec) {
    std::vector<OpenFile> out;
    const std::string base = "/proc/" + std::to_string(pid);
    DIR* dir = opendir((base + "/fd").c_str());
    if (!dir) return out;
    while (dirent* e = readdir(dir)) {
        char* end = nullptr;
        const long fd = std::strtol(e->d_name, &end, 10);
        if (end == e->d_name || *end != '\0' || fd < 0) continue;
        const std::string link = base + "/fd/" + e->d_name;
        struct stat st {};
        if (stat(link.c_str(), &st) != 0 || !(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) continue;
        if (skip_cloexec) {
            // fdinfo's "flags:" is the file's f_flags in octal; O_CLOEXEC is 02000000.
            std::ifstream info(base + "/fdinfo/" + e->d_name);
            std::string key;
            unsigned long flags = 0;
            while (info >> key)
                if (key == "flags:") {
                    info >> std::oct >> flags;
                    break;
                }
            if (flags & O_CLOEXEC) continue;
        }
        char target[4096];
        const ssize_t n = readlink(link.c_str(), target, sizeof(target) - 1);
        if (n <= 0 || target[0] != '/') continue;
        OpenFile f;
        f.fd = static_cast<int>(fd);
        f.dev = (major(st.st_dev) << 20) | minor(st.st_dev);
        f.ino = st.st_ino;
        f.mode = st.st_mode;
        f.size = static_cast<uint64_t>(st.st_size);
        f.path.assign(target, static_cast<size_t>(n));
        out.push_back(std::move(f));
    }
    closedir(dir);
    return out;
}

}  // namespace iolens::capture
