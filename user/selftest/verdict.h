#pragma once
// How a self-test outcome is shown: one line per check on stdout, and the
// same facts as JSON for scripts (tools/kernel-matrix reads it). Both views
// take everything from the Outcome; neither judges anything itself.
#include <nlohmann/json.hpp>
#include <string>

#include "probes/features.h"
#include "selftest/run.h"
#include "util/result.h"

namespace iolens::selftest {

void print_outcome(const Outcome& o);
nlohmann::json outcome_json(const Outcome& o, const probes::Features& f);
// Through util/output_file.h: a fresh 0600 file, replaced only with force.
Result<void> write_json_file(const std::string& path, bool force, const nlohmann::json& j);

}  // namespace iolens::selftest
