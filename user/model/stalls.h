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
// Both are measured over the whole capture and within each epoch window.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "model/dl_log.h"
#include "model/intervals.h"
#include "model/report.h"

namespace iolens::model {

struct RankStalls {
    uint64_t io_ns = 0;
    uint64_t critical_ns = 0;
    std::vector<uint64_t> io_in;        // per window: io within it
    std::vector<uint64_t> critical_in;  // per window: critical within it
    std::vector<ThreadIo> threads;      // I/O time per thread, most first (ties: pid, tid)
};

// Measures a rank's stalls from its calls fed in start order, with the epoch
// windows known beforehand. The unions are swept as the calls come: each
// piece is measured (whole and per window) once no later call can extend it,
// then forgotten, so memory does not grow with the calls (a single-threaded
// loop has one piece per call). critical is measured as
// |main_io| + |main_offcpu ∩ io| - |main_io ∩ main_offcpu| (main_io is inside
// io), each term a sweep of its own.
class StallSweep {
public:
    // windows: sorted by start, each ending at or before the next one's end
    // (epoch windows); an empty one measures 0.
    StallSweep(std::vector<uint32_t> roots, const std::vector<OffCpuEvent>& offcpu,
               std::vector<Interval> windows);
    void add(const OrderedCall& e);  // in start order (ties any order)
    RankStalls finish() &&;

private:
    // Total and per-window length of disjoint pieces given in increasing order.
    struct Measure {
        uint64_t total = 0;
        std::vector<uint64_t> in;
        size_t first = 0;  // windows before it end before any later piece starts
        void add(uint64_t s, uint64_t e, const std::vector<Interval>& windows);
    };
    // A union being swept: the open piece, and where its off-CPU overlap search resumes.
    struct Sweep {
        bool open = false;
        uint64_t s = 0, e = 0;
        size_t off = 0;
    };
    void extend(Sweep& u, uint64_t s, uint64_t e, Measure& whole, Measure& with_off);
    void close(Sweep& u, Measure& whole, Measure& with_off);

    std::vector<uint32_t> roots_;  // sorted
    IntervalSet main_off_;
    std::vector<Interval> windows_;
    Sweep io_, main_;
    Measure io_m_, io_off_m_, main_m_, main_off_m_;
    struct Run {
        uint64_t s = 0, e = 0, total = 0;
    };
    std::unordered_map<uint64_t, Run> threads_;  // (pid << 32 | tid) -> its merged run
};

// calls: the rank's calls, any order. roots: sorted root pids.
RankStalls rank_stalls(const std::vector<const CallEvent*>& calls, const std::vector<uint32_t>& roots,
                       const std::vector<OffCpuEvent>& offcpu, std::vector<Interval> windows = {});

}  // namespace iolens::model
