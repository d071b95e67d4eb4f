// libFuzzer target: the input is a whole recording file, as `iolens report`
// would read it. Finds what damaged framing (headers, chunk magics, sizes,
// resynchronisation) does; a mutated payload mostly fails its checksum and is
// skipped, which is what chunks_fuzzer.cpp is for.
#include <cstddef>
#include <cstdint>

#include "harness.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    iolens::fuzz::run_recording({data, size}, {});
    return 0;
}
