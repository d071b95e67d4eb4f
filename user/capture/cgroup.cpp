#include "capture/cgroup.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "util/errno_text.h"

namespace iolens::capture {

namespace {

constexpr long kCgroup2Magic = 0x63677270;  // CGROUP2_SUPER_MAGIC
constexpr long kCgroupV1Magic = 0x27e0eb;   // CGROUP_SUPER_MAGIC
constexpr int kMaxDepth = 32;               // as bpf/proc.bpf.c walks up

const char* const kMountHint =
    "--cgroup follows cgroup v2 membership. On a machine that runs cgroup v1 controllers, "
    "the v2 hierarchy still exists: mount it (mount -t cgroup2 none /sys/fs/cgroup/unified) "
    "and name the job's group there; Slurm needs CgroupPlugin=cgroup/v2 and systemd "
    "systemd.unified_cgroup_hierarchy=1 to place jobs in it";

bool is_digits(const std::string& s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
}

// Depth-first search for the directory with inode `id` below `dir`.
std::optional<std::string> find_by_id(const std::string& dir, uint64_t id, int depth) {
    struct stat st {};
    if (stat(dir.c_str(), &st) == 0 && st.st_ino == id) return dir;
    if (depth >= kMaxDepth) return std::nullopt;
    DIR* d = opendir(dir.c_str());
    if (!d) return std::nullopt;
    std::optional<std::string> found;
    while (!found) {
        const dirent* e = readdir(d);
        if (!e) break;
        if (e->d_type != DT_DIR || e->d_name[0] == '.') continue;
        found = find_by_id(dir + "/" + e->d_name, id, depth + 1);
    }
    closedir(d);
    return found;
}

void collect_members(const std::string& dir, int depth, std::vector<pid_t>& out) {
    std::ifstream procs(dir + "/cgroup.procs");
    for (long pid; procs >> pid;)
        if (pid > 0) out.push_back(static_cast<pid_t>(pid));
    if (depth >= kMaxDepth) return;
    DIR* d = opendir(dir.c_str());
    if (!d) return;
    while (const dirent* e = readdir(d))
        if (e->d_type == DT_DIR && e->d_name[0] != '.')
            collect_members(dir + "/" + e->d_name, depth + 1, out);
    closedir(d);
}

}  // namespace

std::vector<std::string> cgroup2_mounts() {
    std::vector<std::string> out;
    std::ifstream in("/proc/self/mountinfo");
    for (std::string line; std::getline(in, line);) {
        // ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER
        const auto dash = line.find(" - ");
        if (dash == std::string::npos) continue;
        std::istringstream tail(line.substr(dash + 3));
        std::string fstype;
        tail >> fstype;
        if (fstype != "cgroup2") continue;
        std::istringstream head(line.substr(0, dash));
        std::string id, parent, dev, root, mount_point;
        head >> id >> parent >> dev >> root >> mount_point;
        if (root == "/") out.push_back(mount_point);  // a bind mount of a subtree names groups differently
    }
    return out;
}

Result<CgroupTarget> resolve_cgroup(const std::string& arg) {
    if (arg.empty()) return make_error("--cgroup needs a cgroup v2 directory or id");
    const auto mounts = cgroup2_mounts();
    CgroupTarget t;
    if (is_digits(arg)) {
        t.id = std::stoull(arg);
        for (const auto& m : mounts)
            if (auto p = find_by_id(m, t.id, 0)) {
                if (access((*p + "/cgroup.events").c_str(), F_OK) != 0)
                    return make_error("--cgroup " + arg +
                                      " is the root of the cgroup2 hierarchy (every process "
                                      "of the machine): name a job's group below it");
                t.path = *p;
                return t;
            }
        if (mounts.empty())
            return make_error("--cgroup " + arg + ": no cgroup2 hierarchy is mounted. " + kMountHint);
        return make_error("--cgroup " + arg + ": no cgroup v2 group has this id (searched " + mounts.front() +
                          (mounts.size() > 1 ? " and " + std::to_string(mounts.size() - 1) + " more" : "") +
                          ")");
    }
    std::vector<std::string> candidates;
    if (arg.front() == '/') candidates.push_back(arg);
    for (const auto& m : mounts) candidates.push_back(m + "/" + (arg.front() == '/' ? arg.substr(1) : arg));
    for (const auto& c : candidates) {
        struct stat st {};
        if (stat(c.c_str(), &st) != 0) continue;
        if (!S_ISDIR(st.st_mode)) return make_error("--cgroup " + c + " is not a directory");
        struct statfs fs {};
        if (statfs(c.c_str(), &fs) != 0) return errno_error("--cgroup " + c);
        if (fs.f_type == kCgroupV1Magic)
            return make_error("--cgroup " + c + " is a cgroup v1 group. " + kMountHint);
        if (fs.f_type != kCgroup2Magic) {
            if (c == arg && arg.front() == '/') continue;  // maybe relative to a cgroup2 mount after all
            return make_error("--cgroup " + c + " is not on a cgroup2 file system. " + kMountHint);
        }
        if (access((c + "/cgroup.events").c_str(), F_OK) != 0)
            return make_error("--cgroup " + c +
                              " is the root of the cgroup2 hierarchy (every process of the machine): name a "
                              "job's group below it");
        t.path = c;
        t.id = st.st_ino;
        return t;
    }
    if (mounts.empty())
        return make_error("--cgroup " + arg + ": no cgroup2 hierarchy is mounted. " + kMountHint);
    return make_error("--cgroup " + arg + ": no such cgroup v2 group (looked in " + candidates.front() +
                      (candidates.size() > 1 ? " and under every cgroup2 mount" : "") + ")");
}

std::vector<pid_t> cgroup_members(const std::string& path) {
    std::vector<pid_t> out;
    collect_members(path, 0, out);
    return out;
}

std::optional<bool> cgroup_populated(const std::string& path) {
    std::ifstream in(path + "/cgroup.events");
    if (!in) return std::nullopt;
    for (std::string key, value; in >> key >> value;)
        if (key == "populated") return value != "0";
    return std::nullopt;
}

std::optional<uint64_t> cgroup_cpu_ns(const std::string& path) {
    std::ifstream in(path + "/cpu.stat");
    for (std::string key; in >> key;) {
        uint64_t v = 0;
        if (!(in >> v)) break;
        if (key == "usage_usec") return v * 1000;
    }
    return std::nullopt;
}

}  // namespace iolens::capture
