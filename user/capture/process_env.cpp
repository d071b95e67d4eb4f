#include "capture/process_env.h"

#include <algorithm>
#include <fstream>

namespace iolens::capture {

std::map<std::string, std::string> read_env_vars(pid_t pid, const std::vector<std::string>& names) {
    std::map<std::string, std::string> out;
    std::ifstream in("/proc/" + std::to_string(pid) + "/environ", std::ios::binary);
    for (std::string entry; std::getline(in, entry, '\0');) {
        auto eq = entry.find('=');
        if (eq == std::string::npos) continue;
        std::string name = entry.substr(0, eq);
        if (std::find(names.begin(), names.end(), name) != names.end()) out[name] = entry.substr(eq + 1);
    }
    return out;
}

}  // namespace iolens::capture
