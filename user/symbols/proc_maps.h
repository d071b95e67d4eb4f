#pragma once
// The executable mappings of a process (/proc/PID/maps), with the build id of
// each mapped file: what turns a user address into (file, offset).
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace iolens::symbols {

struct Mapping {
    uint64_t start = 0, end = 0;  // [start, end)
    uint64_t pgoff = 0;           // file offset of start
    std::string path;             // the mapped file, or "[vdso]"
    std::string build_id;         // hex, "" unknown
};

// The executable mappings listed in maps text (file-backed or [vdso]).
std::vector<Mapping> parse_exec_maps(std::string_view text);

// /proc/PID/maps's executable mappings, each file's build id read through
// /proc/PID/map_files (the very file mapped, even if replaced or deleted
// since) or else its path; empty when the process is gone.
// build_ids, if given, caches them by path across calls (a process that maps
// data files often has its mappings read often).
std::vector<Mapping> read_exec_maps(pid_t pid,
                                    std::unordered_map<std::string, std::string>* build_ids = nullptr);

}  // namespace iolens::symbols
