#pragma once
// A report partial (issue #16; docs/multi-node.md, "Partials"): one
// recording's report, stored whole, so that the report of a job of many
// nodes can be made where each recording is (`iolens report --partial
// node.iolens -o node.part`, in parallel) and merged later from the partials
// alone (`iolens report *.part`), in time linear in the number of nodes,
// without the recordings. Everything merge_reports() reads is kept: the
// capture, the tables by process, file, rank, epoch and device with their
// histograms, the split, the timeline. Findings are not: they are run again
// over whatever the partial is merged into.
//
// The file: the 8 bytes "IOLPART1", then one CBOR object {"version": 1,
// "report": {...}}. A partial is input like a recording: a file that is not
// one is an Error, never a crash (sizes are checked as they are read, every
// histogram is validated).
#include <string>
#include <string_view>

#include "model/report.h"
#include "util/result.h"

namespace iolens::model {

inline constexpr std::string_view kPartialMagic = "IOLPART1";
inline constexpr int kPartialVersion = 1;

// The bytes of a partial of report.
std::string encode_partial(const Report& report);
// The report of a partial's bytes (without findings).
Result<Report> decode_partial(std::string_view bytes);

// True when the file at path starts with kPartialMagic.
bool is_partial_file(const std::string& path);
Result<Report> load_partial(const std::string& path);

}  // namespace iolens::model
