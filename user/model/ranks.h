#pragma once
// Groups the traced processes into distributed-training ranks.
//
//  - A process's own rank comes from its rank variables (rank_env.h), as
//    recorded in ENV chunks. A process without one inherits its parent's,
//    following the ppid chain as known from fork/exec records and PROCESS
//    chunks: DataLoader workers belong to the rank that forked them.
//  - Processes with no ranked ancestor (a launcher such as torchrun itself) are
//    in no rank. If no process has a rank at all, every process is rank 0 with
//    source "default" (a single-process job).
//  - Roots: the processes of a rank whose parent is not of the rank. A root
//    that did fewer calls than its only child, a different program (another
//    comm), hands over to that child (`srun bash -c "python train.py"`: the
//    shell is not the trainer; a DataLoader worker, same comm, is not the
//    trainer either). The
//    roots' main threads are the rank's "main thread" for critical_io_ns.
// A pid reused during the capture counts as one process here.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/report.h"

namespace iolens::model {

struct RankGroup {
    int64_t rank = 0;
    std::optional<int64_t> local_rank;
    std::optional<int64_t> world_size;
    std::string source;
    std::vector<uint32_t> pids;   // sorted
    std::vector<uint32_t> roots;  // sorted
};

struct RankMap {
    std::vector<RankGroup> ranks;                  // by rank
    std::unordered_map<uint32_t, size_t> rank_of;  // pid -> index in ranks
    const RankGroup* find(uint32_t pid) const {
        auto it = rank_of.find(pid);
        return it == rank_of.end() ? nullptr : &ranks[it->second];
    }
};

using EnvByPid = std::map<uint32_t, std::map<std::string, std::string>>;

// processes: every process known (any order). calls_of: calls per pid (for
// the root hand-over).
RankMap assign_ranks(const std::vector<ProcessInfo>& processes, const EnvByPid& env,
                     const std::string& override_var, const std::unordered_map<uint32_t, uint64_t>& calls_of);

}  // namespace iolens::model
