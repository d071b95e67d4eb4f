#pragma once
// `iolens record`: the command-line options and their validation into
// capture::RecordOptions (kept apart from running so tests can check parsing).
#include <memory>
#include <string>
#include <vector>

#include "capture/record_session.h"
#include "cli/options.h"
#include "util/result.h"

namespace iolens::cli {

struct RecordCliOptions {
    std::vector<std::string> command;
    long pid = 0;
    std::string cgroup;  // --cgroup PATH|ID
    std::string duration;
    std::string output = "iolens.data";
    bool force = false;
    bool drop_caches = false;
    unsigned ringbuf_mib = 64;
    std::string force_hook;
    std::string force_variant;
    std::string bpf_stats = "sampled";
    bool live = false;   // --live: iolens top's header line on stderr every second
    std::string stacks;  // --stacks[=SPEC]: "" off
    OutputOptions out;
};

Result<capture::RecordOptions> validate_record(const RecordCliOptions& cli);
// --stacks's SPEC: comma-separated "first" (each thread's first call on each
// file), "1/N" (one call in N of each thread), "all" (every call).
Result<probes::ProbeOptions::Stacks> parse_stacks_spec(const std::string& spec);

}  // namespace iolens::cli
