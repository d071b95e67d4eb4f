#pragma once
// Fills Report::ranks, epochs and rank_imbalance from the event log, once the
// builder has seen everything (see dl_log.h for why this happens at the end).
#include <string>
#include <utility>
#include <vector>

#include "model/dl_log.h"
#include "model/ranks.h"
#include "model/report.h"

namespace iolens::model {

struct DlInputs {
    const DlLog& log;
    const EnvByPid& env;
    std::string rank_env_override;  // --rank-env VAR, "" for the precedence list
    // By DlLog file index: whether its path is software's (software_path;
    // unknown paths are data files).
    std::vector<uint8_t> software_file;
    size_t reorder_calls = size_t{1} << 16;  // BuilderOptions::reorder_calls
    // (index in log.page_cache, bytes of that eviction read ahead and never
    // read), by index (readahead_judge.h).
    std::vector<std::pair<size_t, uint64_t>> page_cache_unused;
    size_t timeline_bins = 0;  // BuilderOptions::timeline_bins
    size_t threads = 0;        // BuilderOptions::threads
};

// report.processes and report.capture must be filled already.
void attribute_dl(Report& report, const DlInputs& in);

// The spread of the ranks' read bytes and I/O time (Report::rank_imbalance);
// nothing with fewer than 2 ranks.
std::optional<RankImbalance> rank_imbalance_of(const std::vector<RankStats>& ranks);

}  // namespace iolens::model
