#include "capture/process_scan.h"

#include <dirent.h>
#include <signal.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace iolens::capture {

namespace {

// /proc/PID/stat: "pid (comm) state ppid ..."; comm may contain spaces and ')'.
bool read_stat(pid_t pid, std::string& comm, pid_t& ppid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(in, line))
        return false;
    auto open = line.find('(');
    auto close = line.rfind(')');
    if (open == std::string::npos || close == std::string::npos || close < open)
        return false;
    comm = line.substr(open + 1, close - open - 1);
    std::istringstream rest(line.substr(close + 1));
    char state;
    rest >> state >> ppid;
    return static_cast<bool>(rest);
}

}  // namespace

bool process_exists(pid_t pid)
{
    return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

std::vector<pid_t> process_tree(pid_t root)
{
    std::multimap<pid_t, pid_t> children;
    if (DIR* d = opendir("/proc")) {
        while (dirent* e = readdir(d)) {
            char* end = nullptr;
            long pid = std::strtol(e->d_name, &end, 10);
            if (*end != 0 || pid <= 0)
                continue;
            std::string comm;
            pid_t ppid = 0;
            if (read_stat(static_cast<pid_t>(pid), comm, ppid))
                children.emplace(ppid, static_cast<pid_t>(pid));
        }
        closedir(d);
    }
    std::vector<pid_t> out;
    if (!process_exists(root))
        return out;
    out.push_back(root);
    for (size_t i = 0; i < out.size(); i++) {
        auto [lo, hi] = children.equal_range(out[i]);
        for (auto it = lo; it != hi; ++it)
            out.push_back(it->second);
    }
    return out;
}

std::optional<recording::ProcessInfo> read_process(pid_t pid)
{
    recording::ProcessInfo info;
    pid_t ppid = 0;
    if (!read_stat(pid, info.comm, ppid))
        return std::nullopt;
    info.pid = static_cast<uint32_t>(pid);
    info.ppid = static_cast<uint32_t>(ppid);
    std::ifstream cmd("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
    std::string arg;
    while (std::getline(cmd, arg, '\0'))
        info.cmdline.push_back(arg);
    return info;
}

}  // namespace iolens::capture
