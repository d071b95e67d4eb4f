#pragma once
// The self-test's known I/O, defined once: the workload that performs it and
// the checks that compare iolens's report against it both read these tables,
// so the expected numbers cannot drift from what the workload does.
//
// Three worker processes, forked (never exec'd) by one driver process:
//   A, B  read the warm file `sizes.bin` with read() at several sizes and
//         pread() at an odd size, write their own output file, fsync it, and
//         talk to the driver through pipes (traffic that must not count);
//   C     reads the cold file `cold.bin` (evicted before the run) to EOF.
#include <cstdint>
#include <string>
#include <vector>

namespace iolens::selftest {

struct ReadRun {
    uint64_t size = 0;   // bytes asked for (and returned: the file is big enough)
    uint64_t count = 0;
    bool positional = false;  // pread() at an odd offset instead of read()
};

struct WorkerPlan {
    char role = 'A';
    std::vector<ReadRun> reads;  // of sizes.bin, in this order
    uint64_t write_size = 0;     // write() calls to out_<role>.bin
    uint64_t write_count = 0;
    uint64_t pipe_messages = 0;  // write()s to the driver's pipe, and read()s of the driver's data
    uint64_t pipe_message_size = 0;
};

inline constexpr const char* kWarmFile = "sizes.bin";
inline constexpr const char* kColdFile = "cold.bin";
inline constexpr uint64_t kWarmFileSize = 4ull << 20;
inline constexpr uint64_t kColdFileSize = 2ull << 20;  // page aligned: misses are exactly this
inline constexpr uint64_t kColdChunk = 64ull << 10;
inline constexpr uint64_t kColdPipeMessages = 3;  // C's pipe traffic, each way
inline constexpr uint64_t kColdPipeMessageSize = 32;

// The two warm readers (A, B). The cold reader (C) is described by the
// constants above.
const std::vector<WorkerPlan>& warm_workers();

std::string out_file(char role);  // "out_A.bin"

// What each worker's syscalls add up to, as iolens should count them.
struct Expected {
    uint64_t read_calls = 0, read_bytes = 0;
    uint64_t write_calls = 0, write_bytes = 0;
    uint64_t open_calls = 0, close_calls = 0;
    uint64_t stat_calls = 0, seek_calls = 0, sync_calls = 0;
};
Expected expected_warm(const WorkerPlan& w);
Expected expected_cold();

}  // namespace iolens::selftest
