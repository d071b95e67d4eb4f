#pragma once
// Numbers in human units, the one formatter for everything iolens prints: the
// terminal report, finding titles, logs.
#include <cstdint>
#include <string>

namespace iolens {

std::string human_bytes(uint64_t bytes);  // "512 B", "1.50 KiB", "12.3 MiB", "123 GiB"
std::string human_ns(uint64_t ns);        // "850 ns", "12.3 us", "1.23 ms", "45.7 s", "2.50 h", "113 d"
std::string human_count(uint64_t n);      // "1,234,567"

}  // namespace iolens
