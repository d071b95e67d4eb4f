#pragma once
// The kernel counters (enum iolens_counter) as C++ sees them: one row per
// IOLENS_COUNTERS entry in include/iolens/abi.h, and the names of those that
// are losses, in table order.
#include <array>
#include <cstddef>

#include "iolens/abi.h"

namespace iolens::probes {

struct CounterInfo {
    int id;               // enum iolens_counter
    const char* name;     // in kernel_counters and lost_detail
    bool loss;            // counts records that never reached the recording
    const char* meaning;  // one line, as docs/capture.md says it
};

inline constexpr CounterInfo kCounters[] = {
#define IOLENS_COUNTER_ROW(id, value, name, loss, meaning) {IOLENS_CNT_##id, name, (loss) != 0, meaning},
    IOLENS_COUNTERS(IOLENS_COUNTER_ROW)
#undef IOLENS_COUNTER_ROW
};
static_assert(std::size(kCounters) == IOLENS_CNT_COUNT);

namespace detail {
#define IOLENS_COUNTER_LOSS(id, value, name, loss, meaning) +((loss) != 0)
inline constexpr size_t kLossCount = 0 IOLENS_COUNTERS(IOLENS_COUNTER_LOSS);
#undef IOLENS_COUNTER_LOSS
}  // namespace detail

// Names of the counters that are losses, as they appear in lost_detail.
inline constexpr auto kLossCounterNames = [] {
    std::array<const char*, detail::kLossCount> names{};
    size_t n = 0;
    for (const auto& c : kCounters)
        if (c.loss) names[n++] = c.name;
    return names;
}();

}  // namespace iolens::probes
