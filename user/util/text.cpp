#include "util/text.h"

#include <fmt/format.h>

namespace iolens {

namespace {

// Code points a terminal acts on or that reorder text: C1 controls and the
// bidirectional overrides ("Trojan Source").
bool unsafe_code_point(uint32_t cp) {
    return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

void escape_bytes(std::string& out, std::string_view bytes) {
    for (unsigned char c : bytes) out += fmt::format("\\x{:02x}", c);
}

}  // namespace

// Decodes a valid UTF-8 sequence at s[i]; returns its length, or 0 if invalid.
size_t decode_utf8(std::string_view s, size_t i, uint32_t& cp) {
    const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
    const unsigned char c = b(0);
    size_t n;
    unsigned char lo = 0x80, hi = 0xbf;  // allowed range of the second byte
    if (c >= 0xc2 && c <= 0xdf)
        n = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        n = 3, cp = c & 0x0f, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
    else if (c >= 0xf0 && c <= 0xf4)
        n = 4, cp = c & 0x07, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
    else
        return 0;
    if (i + n > s.size()) return 0;
    for (size_t k = 1; k < n; ++k) {
        const unsigned char x = b(k);
        if (x < (k == 1 ? lo : 0x80) || x > (k == 1 ? hi : 0xbf)) return 0;
        cp = cp << 6 | (x & 0x3f);
    }
    return n;
}

bool valid_utf8(std::string_view s) {
    for (size_t i = 0; i < s.size();) {
        if (static_cast<unsigned char>(s[i]) < 0x80) {
            ++i;
            continue;
        }
        uint32_t cp = 0;
        const size_t n = decode_utf8(s, i, cp);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

std::string utf8_escaped(std::string_view s) {
    if (valid_utf8(s)) return std::string(s);
    std::string out;
    out.reserve(s.size() + 8);
    for (size_t i = 0; i < s.size();) {
        uint32_t cp = 0;
        const size_t n = static_cast<unsigned char>(s[i]) < 0x80 ? 1 : decode_utf8(s, i, cp);
        if (n == 0) {
            escape_bytes(out, s.substr(i, 1));
            ++i;
        } else {
            out.append(s.substr(i, n));
            i += n;
        }
    }
    return out;
}

std::string printable(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    const auto escape = [&](std::string_view bytes) { escape_bytes(out, bytes); };
    for (size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (c < 0x20 || c == 0x7f) {
            escape(s.substr(i, 1));
            ++i;
        } else if (c < 0x80) {
            out += static_cast<char>(c);
            ++i;
        } else {
            uint32_t cp = 0;
            const size_t n = decode_utf8(s, i, cp);
            if (n == 0) {
                escape(s.substr(i, 1));
                ++i;
            } else {
                if (unsafe_code_point(cp))
                    escape(s.substr(i, n));
                else
                    out.append(s.substr(i, n));
                i += n;
            }
        }
    }
    return out;
}

}  // namespace iolens
