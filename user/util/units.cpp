#include "util/units.h"

#include <fmt/format.h>

namespace iolens {

namespace {

// Three significant digits: enough to compare rows, short enough for a column.
std::string three_digits(double v, const char* unit) {
    if (v < 10) return fmt::format("{:.2f} {}", v, unit);
    if (v < 100) return fmt::format("{:.1f} {}", v, unit);
    return fmt::format("{:.0f} {}", v, unit);
}

}  // namespace

std::string human_bytes(uint64_t bytes) {
    static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) return fmt::format("{} B", bytes);
    double v = static_cast<double>(bytes) / 1024;
    int u = 0;
    while (v >= 1024 && u < 5) v /= 1024, ++u;
    return three_digits(v, kUnits[u]);
}

std::string human_ns(uint64_t ns) {
    if (ns < 1000) return fmt::format("{} ns", ns);
    const double v = static_cast<double>(ns);
    if (ns < 1000000) return three_digits(v / 1e3, "us");
    if (ns < 1000000000) return three_digits(v / 1e6, "ms");
    // Long runs switch to hours, then days, so the value stays column-sized.
    if (ns < 1000'000000000ull) return three_digits(v / 1e9, "s");
    if (ns < 360000'000000000ull) return three_digits(v / 3.6e12, "h");
    return three_digits(v / 8.64e13, "d");
}

std::string human_count(uint64_t n) {
    std::string digits = std::to_string(n), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

}  // namespace iolens
