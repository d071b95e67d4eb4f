#include "model/call_sites.h"

#include <fmt/format.h>

#include <algorithm>

namespace iolens::model {

namespace {

std::string base_name(const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool runtime_module(const std::string& path) {
    const std::string b = base_name(path);
    for (const char* prefix :
         {"libc.so", "libc-", "ld-linux", "ld-musl", "libpthread", "libstdc++", "libgcc_s"})
        if (b.rfind(prefix, 0) == 0) return true;
    return false;
}

}  // namespace

std::string library_of(const CallSite& site) {
    for (const auto& f : site.frames)
        if (!f.module.empty() && f.module.front() == '/' && !runtime_module(f.module)) return f.module;
    return {};
}

std::string frame_text(const CallSiteFrame& f) {
    if (f.module.empty()) return fmt::format("0x{:x}", f.offset);
    if (f.function.empty()) return fmt::format("{}+0x{:x}", base_name(f.module), f.offset);
    return fmt::format("{} ({})", f.function, base_name(f.module));
}

std::string folded_stacks(const CallSites& sites, const std::string& weight) {
    std::string out;
    for (const auto& s : sites.sites) {
        const uint64_t w = weight == "time"    ? s.time_ns
                           : weight == "calls" ? s.calls
                                               : s.read_bytes + s.write_bytes;
        if (w == 0) continue;
        std::string line;
        for (auto it = s.frames.rbegin(); it != s.frames.rend(); ++it) {
            std::string name =
                it->function.empty()
                    ? (it->module.empty() ? fmt::format("0x{:x}", it->offset)
                                          : fmt::format("[{}+0x{:x}]", base_name(it->module), it->offset))
                    : it->function;
            // ';' separates frames and the last ' ' the weight: keep them out of names.
            std::replace(name.begin(), name.end(), ';', ':');
            if (!line.empty()) line += ';';
            line += name;
        }
        if (line.empty()) line = "[no user stack]";
        out += fmt::format("{} {}\n", line, w);
    }
    return out;
}

}  // namespace iolens::model
