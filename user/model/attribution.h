#pragma once
// Which rank and which epoch an event belongs to, exactly as the report
// charged it (dl_attribution.cpp): for the exporters, which show the event
// stream with the model's attribution rather than work it out again.
//
// Ranks come from Report::ranks (their pids), epochs from Report::epochs: a
// process of rank i is charged by that rank's own windows
// (EpochRankStats::start_ns/end_ns), any other process by the epochs' own
// windows. Calls go by their start, page-cache events by their time, block
// requests by their issue time. When the report left out the per-rank epoch
// tables (Report::limits: more than kMaxEpochRankCells epochs x ranks), every
// process is charged by the epochs' windows.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "model/epochs.h"
#include "model/report.h"

namespace iolens::model {

class EventAttribution {
public:
    explicit EventAttribution(const Report& report);

    // Index in report.ranks of the process's rank, or -1 (no rank).
    long rank_index(uint32_t pid) const {
        auto it = rank_of_.find(pid);
        return it == rank_of_.end() ? -1 : it->second;
    }
    // Index in report.epochs of the epoch holding time t for an event of a
    // process of rank index `rank` (-1: none), or -1.
    long epoch_index(long rank, uint64_t t) const { return epoch_of(windows(rank), t); }
    // The windows an event of rank index `rank` is charged by (by epoch index).
    const std::vector<EpochWindow>& windows(long rank) const {
        return rank >= 0 && static_cast<size_t>(rank) < rank_windows_.size() ? rank_windows_[rank] : windows_;
    }

private:
    std::unordered_map<uint32_t, long> rank_of_;
    std::vector<EpochWindow> windows_;                    // the epochs'
    std::vector<std::vector<EpochWindow>> rank_windows_;  // by rank index (empty: windows_)
};

}  // namespace iolens::model
