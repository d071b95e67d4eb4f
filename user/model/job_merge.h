#pragma once
// One report of many recordings: the nodes of one job (issue #16; docs/multi-node.md).
// Each recording is reported on its own (model/replay.h), then the reports
// are merged: ranks across nodes (each with its node), epochs aligned by
// index, files by path, every node's page cache and block devices (named
// host:device), per-node summaries (Report::nodes). Times are put on the
// first recording's monotonic clock through the clock anchors each
// recording stores. Findings are run again over the merged report by the
// caller (analysis/summarize.h).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/report.h"
#include "util/result.h"

namespace iolens::model {

struct MergeOptions {
    // Recordings of different jobs (job ids differ) are refused unless set.
    bool allow_mixed = false;
};

// The merge, one part at a time: each report is folded into the job's as it
// is added and can be freed, so that merging N nodes holds the job's report
// and one node's, not N (the partials path: docs/multi-node.md). One part
// alone is its own report, unchanged.
class JobMerger {
public:
    explicit JobMerger(MergeOptions options = {});
    ~JobMerger();
    JobMerger(const JobMerger&) = delete;
    JobMerger& operator=(const JobMerger&) = delete;
    // An Error when the part conflicts with one added before (as below).
    Result<void> add(std::string path, Report report);
    Result<Report> finish();

    struct Seen;  // what the conflict checks keep of each part

private:
    void fold(std::string path, Report report);

    MergeOptions options_;
    std::vector<Seen> seen_;
    std::map<int64_t, size_t> rank_at_;                      // rank -> its part in seen_
    std::unique_ptr<std::pair<std::string, Report>> first_;  // held while it is the only part
    bool started_ = false;
    Report merged_;
    int64_t ref_ = 0;  // the first part's realtime - monotonic
    std::optional<recording::CostInfo> cost_;
    std::optional<uint64_t> job_cpu_;
    uint64_t first_start_ = UINT64_MAX, last_end_ = 0;
    std::set<std::string> releases_, stops_;
    std::map<std::string, size_t> file_at_;
    std::map<uint32_t, size_t> epoch_at_;
};

// parts: (recording path, its report), in the order given. Errors on
// conflicting inputs: different jobs (without allow_mixed), the same host
// over overlapping times (one node twice), one rank on two recordings.
Result<Report> merge_reports(std::vector<std::pair<std::string, Report>> parts,
                             const MergeOptions& options = {});

}  // namespace iolens::model
