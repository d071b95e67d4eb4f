#pragma once
// One report of many recordings: the nodes of one job (issue #16; docs/multi-node.md).
// Each recording is reported on its own (model/replay.h), then the reports
// are merged: ranks across nodes (each with its node), epochs aligned by
// index, files by path, every node's page cache and block devices (named
// host:device), per-node summaries (Report::nodes). Times are put on the
// first recording's monotonic clock through the clock anchors each
// recording stores. Findings are run again over the merged report by the
// caller (analysis/summarize.h).
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

// parts: (recording path, its report), in the order given. Errors on
// conflicting inputs: different jobs (without allow_mixed), the same host
// over overlapping times (one node twice), one rank on two recordings.
Result<Report> merge_reports(std::vector<std::pair<std::string, Report>> parts,
                             const MergeOptions& options = {});

}  // namespace iolens::model
