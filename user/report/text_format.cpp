#include "report/text_format.h"

#include "util/text.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace iolens::report {

namespace {

// Byte length of the UTF-8 sequence starting at a lead byte of a printable()
// string (which holds only valid sequences).
size_t seq_len(unsigned char lead) { return lead < 0x80 ? 1 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4; }

bool wide_code_point(uint32_t cp) {
    return (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) ||
           (cp >= 0xac00 && cp <= 0xd7a3) || (cp >= 0xf900 && cp <= 0xfaff) ||
           (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) ||
           (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x1f300 && cp <= 0x1f64f) ||
           (cp >= 0x1f900 && cp <= 0x1f9ff) || (cp >= 0x20000 && cp <= 0x3fffd);
}

struct Glyph {
    std::string_view bytes;
    size_t width;
};

std::vector<Glyph> glyphs(std::string_view p) {
    std::vector<Glyph> out;
    for (size_t i = 0; i < p.size();) {
        size_t n = std::min(seq_len(static_cast<unsigned char>(p[i])), p.size() - i);
        uint32_t cp = static_cast<unsigned char>(p[i]);
        if (n > 1 && decode_utf8(p, i, cp) != n) n = 1;  // not from printable(): count bytes
        out.push_back({p.substr(i, n), wide_code_point(cp) ? 2u : 1u});
        i += n;
    }
    return out;
}

}  // namespace

std::string seq_rand(std::optional<double> sequential_share) {
    if (!sequential_share) return "-";
    const auto seq = static_cast<uint64_t>(std::llround(100.0 * *sequential_share));
    return std::to_string(seq) + "/" + std::to_string(100 - seq);
}

std::string plain_number(double v) {
    if (!std::isfinite(v)) return std::isnan(v) ? "n/a" : (v > 0 ? "inf" : "-inf");
    const double a = std::fabs(v);
    if (a >= 100) {
        const std::string sign = v < 0 ? "-" : "";
        if (a >= 1.8e19) return sign + fmt::format("{:.0f}", a);
        return sign + human_count(static_cast<uint64_t>(std::llround(a)));
    }
    if (a < 1e-9) return "0";
    // Decimals for three significant digits: 34.9, 3.49, 0.349, 0.0349 ...
    const int decimals = std::clamp(2 - static_cast<int>(std::floor(std::log10(a))), 0, 11);
    std::string out = fmt::format("{:.{}f}", v, decimals);
    if (out.find('.') != std::string::npos) {
        while (out.back() == '0') out.pop_back();
        if (out.back() == '.') out.pop_back();
    }
    return out;
}

std::string count_fit(uint64_t n, size_t width) {
    std::string exact = human_count(n);
    if (exact.size() <= width) return exact;
    static constexpr const char* kSuffix[] = {"K", "M", "G", "T", "P", "E"};
    double v = static_cast<double>(n) / 1000;
    int u = 0;
    while (v >= 1000 && u < 5) v /= 1000, ++u;
    return v < 10    ? fmt::format("{:.2f}{}", v, kSuffix[u])
           : v < 100 ? fmt::format("{:.1f}{}", v, kSuffix[u])
                     : fmt::format("{:.0f}{}", v, kSuffix[u]);
}

size_t display_width(std::string_view p) {
    size_t w = 0;
    for (const auto& g : glyphs(p)) w += g.width;
    return w;
}

std::string elide_middle(std::string_view s, size_t width) {
    const std::string p = printable(s);
    const auto gs = glyphs(p);
    size_t total = 0;
    for (const auto& g : gs) total += g.width;
    if (total <= width) return p;
    if (width <= 3) return std::string(width, '.');
    const size_t keep = width - 3;
    const size_t head_budget = keep / 2, tail_budget = keep - head_budget;
    std::string head, tail;
    size_t used = 0, i = 0;
    for (; i < gs.size() && used + gs[i].width <= head_budget; ++i) {
        head += gs[i].bytes;
        used += gs[i].width;
    }
    used = 0;
    size_t j = gs.size();
    while (j > i && used + gs[j - 1].width <= tail_budget) used += gs[--j].width;
    for (size_t k = j; k < gs.size(); ++k) tail += gs[k].bytes;
    return head + "..." + tail;
}

std::string elide_end(std::string_view s, size_t width) {
    const std::string p = printable(s);
    if (display_width(p) <= width) return p;
    if (width <= 3) return std::string(width, '.');
    std::string out;
    size_t used = 0;
    for (const auto& g : glyphs(p)) {
        if (used + g.width > width - 3) break;
        out += g.bytes;
        used += g.width;
    }
    return out + "...";
}

std::string pad_left(std::string_view p, size_t width) {
    const size_t w = display_width(p);
    return std::string(w < width ? width - w : 0, ' ') + std::string(p);
}

std::string pad_right(std::string_view p, size_t width) {
    const size_t w = display_width(p);
    return std::string(p) + std::string(w < width ? width - w : 0, ' ');
}

std::vector<std::string> wrap(std::string_view s, size_t width, std::string_view first_prefix,
                              std::string_view next_prefix) {
    std::vector<std::string> lines;
    std::string line(first_prefix);
    size_t line_w = display_width(first_prefix);
    bool empty = true;  // no word on the current line yet
    const auto flush = [&] {
        lines.push_back(line);
        line = std::string(next_prefix);
        line_w = display_width(next_prefix);
        empty = true;
    };
    const std::string p = printable(s);
    size_t i = 0;
    while (i < p.size()) {
        if (p[i] == ' ') {
            ++i;
            continue;
        }
        const size_t end = std::min(p.find(' ', i), p.size());
        std::string_view word(p.data() + i, end - i);
        i = end;
        size_t ww = display_width(word);
        if (!empty && line_w + 1 + ww > width) flush();
        if (!empty) line += ' ', ++line_w;
        // A word longer than a whole line is cut where the line ends.
        for (const auto& g : glyphs(word)) {
            if (line_w + g.width > width && !empty) flush();
            line += g.bytes;
            line_w += g.width;
            empty = false;
        }
    }
    if (!empty || lines.empty()) lines.push_back(line);
    return lines;
}

std::vector<std::string> join_items(const std::vector<std::string>& items, size_t width,
                                    std::string_view prefix) {
    std::vector<std::string> lines;
    const size_t prefix_w = display_width(prefix);
    const size_t room = width > prefix_w ? width - prefix_w : 1;
    std::string line;
    size_t line_w = 0;
    for (const auto& raw : items) {
        const std::string item = elide_end(raw, room);
        const size_t w = display_width(item);
        if (line_w && line_w + 2 + w > room) {
            lines.push_back(std::string(prefix) + line);
            line.clear();
            line_w = 0;
        }
        if (line_w) line += ", ", line_w += 2;
        line += item;
        line_w += w;
    }
    if (line_w) lines.push_back(std::string(prefix) + line);
    return lines;
}

std::string shell_join(const std::vector<std::string>& argv) {
    std::string out;
    for (const auto& a : argv) {
        if (!out.empty()) out += ' ';
        const bool plain = !a.empty() && a.find_first_of(" \t\n'\"\\$`*?;&|<>()") == std::string::npos;
        if (plain) {
            out += a;
            continue;
        }
        out += '\'';
        for (char c : a) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
        out += '\'';
    }
    return out;
}

}  // namespace iolens::report
