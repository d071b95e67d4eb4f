#include "symbols/proc_maps.h"

#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <map>
#include <sstream>

#include "symbols/elf_file.h"

namespace iolens::symbols {

namespace {

bool hex_field(std::string_view& s, char stop, uint64_t& out) {
    const auto end = s.find(stop);
    if (end == std::string_view::npos) return false;
    const auto r = std::from_chars(s.data(), s.data() + end, out, 16);
    if (r.ec != std::errc() || r.ptr != s.data() + end) return false;
    s.remove_prefix(end + 1);
    return true;
}

std::string_view next_word(std::string_view& s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    const auto end = s.find(' ');
    const std::string_view w = s.substr(0, end);
    s.remove_prefix(end == std::string_view::npos ? s.size() : end);
    return w;
}

}  // namespace

std::vector<Mapping> parse_exec_maps(std::string_view text) {
    // "start-end perms offset dev inode   path"
    std::vector<Mapping> out;
    while (!text.empty()) {
        const auto nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
        Mapping m;
        if (!hex_field(line, '-', m.start) || !hex_field(line, ' ', m.end)) continue;
        const std::string_view perms = next_word(line);
        std::string_view off = next_word(line);
        uint64_t pgoff = 0;
        if (std::from_chars(off.data(), off.data() + off.size(), pgoff, 16).ec != std::errc()) continue;
        next_word(line);  // dev
        next_word(line);  // inode
        while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
        if (perms.size() < 3 || perms[2] != 'x' || line.empty()) continue;
        if (line.front() != '/' && line != "[vdso]") continue;
        m.pgoff = pgoff;
        m.path = std::string(line);
        out.push_back(std::move(m));
    }
    return out;
}

std::vector<Mapping> read_exec_maps(pid_t pid, std::unordered_map<std::string, std::string>* build_ids) {
    std::ifstream in(fmt::format("/proc/{}/maps", pid));
    if (!in) return {};
    std::stringstream ss;
    ss << in.rdbuf();
    auto maps = parse_exec_maps(ss.str());
    std::map<std::string, std::string> ids;  // path -> build id, once per file
    for (auto& m : maps) {
        if (m.path.front() != '/') continue;
        auto it = ids.find(m.path);
        if (it == ids.end() && build_ids)
            if (auto c = build_ids->find(m.path); c != build_ids->end())
                it = ids.emplace(m.path, c->second).first;
        if (it == ids.end()) {
            std::string id = read_build_id(fmt::format("/proc/{}/map_files/{:x}-{:x}", pid, m.start, m.end));
            if (id.empty()) id = read_build_id(m.path);
            if (build_ids) (*build_ids)[m.path] = id;
            it = ids.emplace(m.path, std::move(id)).first;
        }
        m.build_id = it->second;
    }
    return maps;
}

}  // namespace iolens::symbols
