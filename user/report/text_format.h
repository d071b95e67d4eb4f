#pragma once
// Formatting helpers for the terminal view: human units, and text that is safe
// to print and measured in terminal columns. File names and command lines are
// arbitrary bytes from the traced program, so everything shown passes through
// printable() first: control characters would otherwise let a file name move
// the cursor or change colours in the user's terminal.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/text.h"
#include "util/units.h"

namespace iolens::report {

using iolens::human_bytes;  // util/units.h
using iolens::human_count;
using iolens::human_ns;
// "97/3": a sequential share as whole percent sequential/random; "-" if empty.
std::string seq_rand(std::optional<double> sequential_share);
// A plain number, never in scientific notation: three significant digits,
// whole numbers from 100 up with thousands separators ("3,490", "34.9",
// "0.00349"); values below 1e-9 print as 0.
std::string plain_number(double v);
// human_count if it fits in width columns, else "12.3M"-style.
std::string count_fit(uint64_t n, size_t width);

using iolens::printable;  // util/text.h
// Terminal columns of a printable() string (East Asian wide characters count 2).
size_t display_width(std::string_view printable_text);
// s made printable and shortened to at most width columns by replacing its
// middle with "..." (the ends of a path say the most).
std::string elide_middle(std::string_view s, size_t width);
// s made printable, elided at the end with "..." to fit width.
std::string elide_end(std::string_view s, size_t width);
// Pad a printable string with spaces to width columns.
std::string pad_left(std::string_view printable_text, size_t width);
std::string pad_right(std::string_view printable_text, size_t width);
// Lays items out on lines of at most width columns, separated by ", ", each
// line starting with prefix; an item is never split (it is elided instead).
std::vector<std::string> join_items(const std::vector<std::string>& items, size_t width,
                                    std::string_view prefix);
// Word-wrap s (made printable) into lines of at most width columns, the first
// prefixed with first_prefix and the rest with next_prefix (prefixes included
// in width). Over-long words are cut.
std::vector<std::string> wrap(std::string_view s, size_t width, std::string_view first_prefix,
                              std::string_view next_prefix);
// argv as a shell would need it typed: arguments with spaces or quotes are
// single-quoted.
std::string shell_join(const std::vector<std::string>& argv);

}  // namespace iolens::report
