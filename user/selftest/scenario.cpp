#include "selftest/scenario.h"

namespace iolens::selftest {

const std::vector<WorkerPlan>& warm_workers()
{
    // Sizes in four log2 buckets (4 KiB, 64 KiB, 1 MiB, and an odd size that
    // is neither page aligned nor a power of two), different per worker so a
    // read charged to the wrong process shows.
    static const std::vector<WorkerPlan> plans = {
        {'A', {{4096, 16, false}, {65536, 4, false}, {1ull << 20, 2, false}, {1000, 5, true}}, 8192, 3, 10, 64},
        {'B', {{4096, 7, false}, {65536, 3, false}, {1ull << 20, 1, false}, {12345, 3, true}}, 4096, 2, 4, 200},
    };
    return plans;
}

std::string out_file(char role) { return std::string("out_") + role + ".bin"; }

Expected expected_warm(const WorkerPlan& w)
{
    Expected e;
    for (const auto& r : w.reads) {
        e.read_calls += r.count;
        e.read_bytes += r.size * r.count;
    }
    e.write_calls = w.write_count;
    e.write_bytes = w.write_size * w.write_count;
    e.open_calls = 2;   // sizes.bin, out_<role>.bin
    e.close_calls = 4;  // those two, and the worker's two pipe ends (close counts every fd)
    e.stat_calls = 1;   // fstat of sizes.bin
    e.seek_calls = 1;   // lseek back to 0 before the sequential reads
    e.sync_calls = 1;   // fsync of out_<role>.bin
    return e;
}

Expected expected_cold()
{
    Expected e;
    // Full chunks, then the read that returns 0 at EOF.
    e.read_calls = kColdFileSize / kColdChunk + 1;
    e.read_bytes = kColdFileSize;
    e.open_calls = 1;
    e.close_calls = 3;  // cold.bin and the two pipe ends
    return e;
}

}  // namespace iolens::selftest
