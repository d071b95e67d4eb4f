#pragma once
// Which files are the job's software and which its data. A training job reads
// its interpreter, Python modules and shared libraries (import torch opens
// over a thousand of them) as well as its dataset; rules about the dataset
// (many_small_files, metadata_heavy, random_access, io_stall's advice) must
// not count the former. Judged by path: the class a path belongs to whatever
// the job does with it.
#include <string_view>

namespace iolens::model {

// The paths of software and system files: Python sources and bytecode,
// shared libraries (.so, .so.N), anything under site-packages/dist-packages
// or __pycache__, the system trees (/usr/lib, /lib, /usr/bin, /etc, ...), and
// kernel interfaces (/proc, /sys, /dev). An empty (unknown) path is not.
bool software_path(std::string_view path);

inline constexpr std::string_view kSoftwarePrefixes[] = {
    "/proc/",  "/sys/",       "/dev/",           "/usr/lib/",     "/usr/lib64/",     "/lib/",
    "/lib64/", "/usr/share/", "/usr/local/lib/", "/etc/",         "/run/",           "/usr/bin/",
    "/bin/",   "/usr/sbin/",  "/sbin/",          "/usr/libexec/", "/usr/local/bin/",
};
inline constexpr std::string_view kSoftwareSuffixes[] = {".py", ".pyc", ".pyo", ".pyd", ".so", ".pth"};
inline constexpr std::string_view kSoftwareParts[] = {
    "/site-packages/", "/dist-packages/", "/__pycache__/", ".so.", ".dist-info/", ".egg-info/"};

}  // namespace iolens::model
