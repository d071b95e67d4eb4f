#include "export/trace.h"

#include <algorithm>

namespace iolens::exports {

std::string TraceContext::rank_label(long rank) const {
    if (rank < 0 || static_cast<size_t>(rank) >= report.ranks.size()) return "no rank";
    return "rank " + std::to_string(report.ranks[rank].rank);
}

const model::ProcessInfo* TraceContext::process(uint32_t pid) const {
    // Sorted by pid (a reused pid twice: the first).
    auto it = std::lower_bound(report.processes.begin(), report.processes.end(), pid,
                               [](const model::ProcessStats& p, uint32_t v) { return p.info.pid < v; });
    return it != report.processes.end() && it->info.pid == pid ? &it->info : nullptr;
}

std::string TraceContext::process_label(uint32_t pid) const {
    const model::ProcessInfo* p = process(pid);
    const std::string comm = p && !p->comm.empty() ? p->comm : "pid";
    return comm + " (" + std::to_string(pid) + ")";
}

namespace {

// Length of the valid UTF-8 sequence at s[i], or 0.
size_t utf8_len(std::string_view s, size_t i) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n;
    uint32_t min;
    if (c < 0x80) return 1;
    if ((c & 0xe0) == 0xc0)
        n = 2, min = 0x80;
    else if ((c & 0xf0) == 0xe0)
        n = 3, min = 0x800;
    else if ((c & 0xf8) == 0xf0)
        n = 4, min = 0x10000;
    else
        return 0;
    if (i + n > s.size()) return 0;
    uint32_t cp = c & (0x7f >> n);
    for (size_t k = 1; k < n; ++k) {
        const auto d = static_cast<unsigned char>(s[i + k]);
        if ((d & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (d & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return n;
}

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    for (size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
            out.push_back(static_cast<char>(c));
            ++i;
            continue;
        }
        if (c == '"' || c == '\\') {
            out.push_back('\\');
            out.push_back(static_cast<char>(c));
            ++i;
            continue;
        }
        if (c < 0x20) {
            out.append("\\u00");
            out.push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 15]);
            ++i;
            continue;
        }
        const size_t n = utf8_len(s, i);
        if (n == 0) {
            out.append("\xef\xbf\xbd");  // U+FFFD
            ++i;
        } else {
            out.append(s.substr(i, n));
            i += n;
        }
    }
}

uint64_t fnv1a64(std::string_view s) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (char c : s) {
        h ^= static_cast<unsigned char>(c);
        h *= 0x100000001b3ull;
    }
    return h;
}

}  // namespace iolens::exports
