#pragma once
// Text from the traced job (file names, command lines, environment values,
// and anything a recording carries) is arbitrary bytes. These make it safe to
// show and to store: printable() for a terminal (control characters would
// let a file name move the cursor or recolour it), utf8_escaped() for JSON
// (which must be UTF-8).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace iolens {

// Decodes a valid UTF-8 sequence at s[i]; returns its length, or 0 if invalid.
size_t decode_utf8(std::string_view s, size_t i, uint32_t& cp);
bool valid_utf8(std::string_view s);
// Control characters, C1 controls, bidirectional overrides and bytes that
// are not UTF-8 become "\xNN"; the rest is kept. The result is valid UTF-8
// without control characters.
std::string printable(std::string_view s);
// s if it is valid UTF-8, else s with each byte that is not part of a valid
// sequence written as "\xNN" (control characters are left to the JSON writer).
std::string utf8_escaped(std::string_view s);

}  // namespace iolens
