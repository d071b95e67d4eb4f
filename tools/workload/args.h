// Command-line options of one mode: "--name value", "--name=value" or, for
// flags, "--name". Every mode declares the options it accepts; anything else is
// a usage error (exit 2), so a typo never silently falls back to a default.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <utility>
#include <vector>

namespace wl {

struct OptionSpec {
    std::string_view name;  // without the leading "--"
    bool takes_value;       // false: a flag
};

class Args {
public:
    // argv[0..argc) are the words after the mode name.
    Args(std::initializer_list<OptionSpec> spec, int argc, char** argv);

    // A required option's text.
    const char* text(std::string_view name) const;
    // An optional option's text, or `fallback` when it is not given.
    const char* text_or(std::string_view name, const char* fallback) const;

    // Numbers are decimal with an optional binary suffix: k/K (2^10), m/M
    // (2^20), g/G (2^30). Out of [lo, hi] is a usage error.
    uint64_t number(std::string_view name, uint64_t lo, uint64_t hi) const;
    uint64_t number_or(std::string_view name, uint64_t fallback, uint64_t lo, uint64_t hi) const;

    bool flag(std::string_view name) const;

private:
    const char* find(std::string_view name) const;
    uint64_t parse_number(std::string_view name, const char* text, uint64_t lo, uint64_t hi) const;

    std::vector<std::pair<std::string_view, const char*>> given_;
};

}  // namespace wl
