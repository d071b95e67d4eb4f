#pragma once
// `iolens self-test` end to end: prepare the files, record the known workload
// with the normal capture path (iolens relaunched as the traced driver), and
// judge the report.
#include <string>
#include <vector>

#include "model/report.h"
#include "probes/features.h"
#include "selftest/checks.h"
#include "util/result.h"

namespace iolens::selftest {

// The hidden subcommand the traced driver runs as (never shown in --help).
inline constexpr const char* kWorkloadCommand = "__self-test-workload";

struct Options {
    std::string base_dir = "/var/tmp";  // where the scratch directory is created
    bool keep = false;                  // leave the scratch directory (and the recording) behind
    std::string force_hook;             // "tp_btf" or "raw_tp": test that fallback path only
};

struct Outcome {
    std::string scratch_dir;
    std::string force_hook;  // as asked (empty: the best hook per family)
    Storage storage;
    std::vector<recording::ProbeStatus> probes;  // as attached for the run
    std::vector<Check> checks;
    std::string record_error;  // set when the recording itself could not be made
};

// Fails (an Error) only for bad input or set-up problems; a recording that
// cannot be made is an Outcome with record_error and a failed "record" check.
Result<Outcome> run_self_test(const Options& options, const probes::Features& features);

bool passed(const Outcome& o);  // no check failed

}  // namespace iolens::selftest
