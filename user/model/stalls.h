#pragma once
// How long a rank waited for I/O.
//   io:       the union over every thread and process of the rank of its file
//             calls' [start, start + duration). Page fault-ins have no duration
//             in the records and add nothing.
//   critical: main_io ∪ (main_offcpu ∩ io), where main_io is the calls of the
//             rank's main threads (tid == pid of a root process) and main_offcpu
//             their off-CPU intervals (IOLENS_REC_OFFCPU): the main thread did
//             the I/O itself, or slept while the rank's I/O was in flight
//             (waiting for a DataLoader worker's batch).
// Both are kept as interval sets, so any window (an epoch) is measured exactly.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "model/dl_log.h"
#include "model/intervals.h"
#include "model/report.h"

namespace iolens::model {

struct RankStalls {
    IntervalSet io;
    IntervalSet critical;
    std::vector<ThreadIo> threads;  // I/O time per thread, most first (ties: pid, tid)
};

// Builds a rank's stalls from its calls fed in start order, merging as they
// come: memory grows with the disjoint pieces of the union and the threads,
// not with the calls.
class StallSweep {
public:
    explicit StallSweep(std::vector<uint32_t> roots) : roots_(std::move(roots)) {}
    void add(const CallEvent& e);  // in start order (ties any order)
    RankStalls finish(const std::vector<OffCpuEvent>& offcpu) &&;

private:
    struct Run {
        uint64_t s = 0, e = 0, total = 0;
    };
    static void extend(std::vector<Interval>& v, uint64_t s, uint64_t e);
    std::vector<uint32_t> roots_;  // sorted
    std::vector<Interval> io_, main_io_;
    std::unordered_map<uint64_t, Run> threads_;  // (pid << 32 | tid) -> its merged run
};

// calls: the rank's calls, any order. roots: sorted root pids.
RankStalls rank_stalls(const std::vector<const CallEvent*>& calls,
                       const std::vector<uint32_t>& roots, const std::vector<OffCpuEvent>& offcpu);

}  // namespace iolens::model
