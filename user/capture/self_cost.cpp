#include "capture/self_cost.h"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string>

namespace iolens::capture {

namespace {

uint64_t timeval_ns(const timeval& tv) {
    return static_cast<uint64_t>(tv.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(tv.tv_usec) * 1000ull;
}

}  // namespace

Usage self_usage() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return {timeval_ns(ru.ru_utime) + timeval_ns(ru.ru_stime), static_cast<uint64_t>(ru.ru_maxrss) * 1024ull};
}

uint64_t reaped_children_cpu_ns() {
    rusage ru{};
    getrusage(RUSAGE_CHILDREN, &ru);
    return timeval_ns(ru.ru_utime) + timeval_ns(ru.ru_stime);
}

std::optional<uint64_t> process_cpu_ns(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat;
    if (!std::getline(in, stat)) return std::nullopt;
    // The command name (field 2) may hold spaces and parentheses: fields are
    // counted after its last ')'. utime is field 14, so the 12th after it.
    const auto close = stat.rfind(')');
    if (close == std::string::npos) return std::nullopt;
    std::istringstream fields(stat.substr(close + 1));
    std::string skip;
    for (int i = 3; i < 14; i++) fields >> skip;
    uint64_t utime = 0, stime = 0;
    int64_t cutime = 0, cstime = 0;
    if (!(fields >> utime >> stime >> cutime >> cstime)) return std::nullopt;
    const long hz = sysconf(_SC_CLK_TCK);
    const uint64_t ticks = utime + stime + static_cast<uint64_t>(cutime) + static_cast<uint64_t>(cstime);
    return ticks * (1'000'000'000ull / static_cast<uint64_t>(hz > 0 ? hz : 100));
}

}  // namespace iolens::capture
