#pragma once
// Helpers for checking rendered terminal text in tests.
#include <sstream>
#include <string>
#include <vector>

namespace iolens::test {

inline std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
}

// Columns as a terminal counts them for test fixtures: one per UTF-8 code
// point (the fixtures have no wide characters). Independent of the
// renderer's own width function on purpose.
inline size_t columns(const std::string& line) {
    size_t n = 0;
    for (unsigned char c : line) n += (c & 0xc0) != 0x80;
    return n;
}

}  // namespace iolens::test
