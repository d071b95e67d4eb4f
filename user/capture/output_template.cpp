#include "capture/output_template.h"

#include <cctype>
#include <ctime>

namespace iolens::capture {

namespace {

// A value as a file-name part: letters, digits and ._- kept, anything else
// (a '/', a space, control bytes) as '_'.
std::string name_part(const std::string& v) {
    std::string out;
    for (unsigned char c : v)
        out += (std::isalnum(c) || c == '.' || c == '_' || c == '-') ? static_cast<char>(c) : '_';
    if (out == "." || out == "..") out = "_";
    return out;
}

std::string utc(uint64_t unix_ns) {
    const time_t t = static_cast<time_t>(unix_ns / 1'000'000'000ull);
    struct tm tm {};
    gmtime_r(&t, &tm);
    char buf[32];
    strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
    return buf;
}

}  // namespace

std::optional<JobId> job_id_from_env(const std::function<const char*(const char*)>& get) {
    for (const char* var : {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "FLUX_JOB_ID"})
        if (const char* v = get(var); v && *v) return JobId{v, var};
    return std::nullopt;
}

bool has_template(const std::string& path) { return path.find('%') != std::string::npos; }

Result<std::string> expand_output_template(const std::string& path, const TemplateFacts& f) {
    std::string out;
    for (size_t i = 0; i < path.size(); ++i) {
        if (path[i] != '%') {
            out += path[i];
            continue;
        }
        if (i + 1 == path.size()) return make_error("-o " + path + ": a % at the end (%% is a percent sign)");
        switch (path[++i]) {
            case 'h':
                out += name_part(f.host.empty() ? "nohost" : f.host);
                break;
            case 'j':
                out += name_part(f.job_id.empty() ? "nojob" : f.job_id);
                break;
            case 'r':
                out += name_part(f.rank.empty() ? "norank" : f.rank);
                break;
            case 'p':
                out += std::to_string(f.pid);
                break;
            case 't':
                out += utc(f.start_unix_ns);
                break;
            case '%':
                out += '%';
                break;
            default:
                return make_error("-o " + path + ": unknown %" + std::string(1, path[i]) +
                                  " (%h host, %j job id, %r rank, %p pid, %t start time, %% a percent sign)");
        }
    }
    if (out.empty()) return make_error("-o " + path + ": an empty file name");
    return out;
}

}  // namespace iolens::capture
