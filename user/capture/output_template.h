#pragma once
// Recording names for a job that spans nodes (issue #16): `-o` may hold
// %h (host name), %j (the batch system's job id), %r (the first rank seen),
// %p (the recorder's pid), %t (the start, UTC) and %% (a percent sign), so
// `srun --ntasks-per-node=1 iolens record -o job-%j/%h.iolens -- ...` writes
// one file per node without clobbering.
#include <cstdint>
#include <functional>
#include <cstdlib>
#include <optional>
#include <string>

#include "util/result.h"

namespace iolens::capture {

// The batch system's job id, from the first of SLURM_JOB_ID, PBS_JOBID,
// LSB_JOBID, FLUX_JOB_ID that is set and not empty.
struct JobId {
    std::string id;
    std::string source;  // the variable
};
std::optional<JobId> job_id_from_env(const std::function<const char*(const char*)>& get = ::getenv);

struct TemplateFacts {
    std::string host;
    std::string job_id;  // empty: none
    std::string rank;    // empty: none seen
    uint64_t pid = 0;
    uint64_t start_unix_ns = 0;
};

// The path with every % sequence replaced. A value that is missing becomes
// "nojob" / "norank"; '/' and other bytes a file name should not get from a
// value become '_'. An unknown %x, a trailing %, or an empty result is an error.
Result<std::string> expand_output_template(const std::string& path, const TemplateFacts& facts);
bool has_template(const std::string& path);

}  // namespace iolens::capture
