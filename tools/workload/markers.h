// Epoch/step markers (docs/markers.md): access(2) on a path under /.iolens/,
// which fails with ENOENT and which iolens turns into training structure.
// The workload makes them with the raw access syscall (sys.h), one call each,
// so they count as one failed stat-class call (ENOENT) apiece.
#pragma once

#include <cstdint>

namespace wl {

// access("/.iolens/epoch/<n>", F_OK)
void marker_epoch(uint64_t n);
// access("/.iolens/step/<n>", F_OK)
void marker_step(uint64_t n);
// access("/.iolens/end", F_OK)
void marker_end();

}  // namespace wl
