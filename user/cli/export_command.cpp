// `iolens export`: a recording as a timeline trace for Perfetto, Chrome's
// trace viewers or DFTracer's analyzer (docs/export.md). No privileges.
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <set>

#include "cli/commands.h"
#include "cli/options.h"
#include "export/exporter.h"
#include "util/output_file.h"

namespace iolens::cli {

namespace {

struct ExportCliOptions {
    std::vector<std::string> inputs = {"iolens.data"};
    std::string output;
    std::string format = "perfetto";
    std::string rank_env;
    bool force = false;
};

exports::Format parse_format(const std::string& f) {
    if (f == "chrome") return exports::Format::Chrome;
    if (f == "dftracer") return exports::Format::DfTracer;
    return exports::Format::Perfetto;
}

// "train" of "job-42/train.iolens"; the output's extension of a format.
std::string stem_of(const std::string& path) {
    std::string base = path.substr(path.find_last_of('/') + 1);
    if (base.size() > 7 && base.compare(base.size() - 7, 7, ".iolens") == 0) base.resize(base.size() - 7);
    return base;
}
std::string extension_of(exports::Format f) {
    const std::string d = exports::default_output(f);  // iolens.pftrace, iolens.json, iolens.pfw.gz
    return d.substr(d.find('.'));
}

// One export; its exit status (0, 3 partial, 1 failed).
int export_one(const std::string& input, const exports::ExportOptions& o) {
    auto outcome = exports::export_recording(input, o);
    if (!outcome) {
        spdlog::error("{}", outcome.error().message);
        return 1;
    }
    if (outcome->partial)
        spdlog::warn("{}: partial recording, exported as far as it goes: {}", input, outcome->partial_reason);
    spdlog::info("{}: {} events, {} bytes ({} format{})", o.output, outcome->events, outcome->bytes,
                 exports::format_name(o.format), outcome->gzip ? ", gzip" : "");
    if (o.format == exports::Format::Chrome && outcome->raw_bytes > exports::kChromeJsonWarnBytes)
        spdlog::warn(
            "{} holds {} MiB of trace JSON: chrome://tracing fails past about 256 MiB and the "
            "Perfetto "
            "UI past a few hundred; open it through `trace_processor --httpd {}`, or export "
            "--format perfetto (several times smaller)",
            o.output, outcome->raw_bytes >> 20, o.output);
    return outcome->partial ? 3 : 0;
}

// Many recordings (the nodes of one job): one trace per recording in the
// directory -o names, each named after its recording. DFTracer's files are
// read as one job by DFAnalyzer (a glob: DIR/*.pfw.gz), each host by its
// hhash; Perfetto and Chrome open one node's trace at a time.
int export_many(const ExportCliOptions& c, exports::ExportOptions o) {
    const std::string dir = c.output.empty() ? std::string("iolens-export") : c.output;
    std::set<std::string> stems;
    for (const auto& in : c.inputs)
        if (!stems.insert(stem_of(in)).second) {
            spdlog::error(
                "two recordings are named {}: each node's trace is named after its recording "
                "(give them different names)",
                stem_of(in));
            return 2;
        }
    struct stat st {};
    if (lstat(dir.c_str(), &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            spdlog::error("-o {}: with several recordings, -o is a directory (one trace per recording)", dir);
            return 2;
        }
    } else if (mkdir(dir.c_str(), 0755) != 0) {
        spdlog::error("cannot create the directory {}: {}", dir, std::strerror(errno));
        return 1;
    }
    int status = 0;
    for (const auto& in : c.inputs) {
        o.output = dir + "/" + stem_of(in) + extension_of(o.format);
        if (auto r = check_output_path(o.output, o.force, "the export"); !r) {
            spdlog::error("{}", r.error().message);
            return 2;
        }
    }
    for (const auto& in : c.inputs) {
        o.output = dir + "/" + stem_of(in) + extension_of(o.format);
        const int s = export_one(in, o);
        if (s == 1) return 1;
        status = std::max(status, s);
    }
    spdlog::info("{}: {} traces, one per recording{}", dir, c.inputs.size(),
                 o.format == exports::Format::DfTracer
                     ? " (DFAnalyzer reads them as one job: " + dir + "/*.pfw.gz)"
                     : std::string());
    return status;
}

}  // namespace

void register_export(CLI::App& app, Action& action) {
    auto opts = std::make_shared<ExportCliOptions>();
    auto* sub =
        app.add_subcommand("export", "Write a recording's events as a timeline trace (no privileges needed)");
    sub->add_option("file", opts->inputs,
                    "Recording to read; several (the nodes of one job) give one trace each, in the directory "
                    "-o names")
        ->type_name("FILE...")
        ->capture_default_str();
    sub->add_option(
           "--format", opts->format,
           "perfetto (protobuf trace), chrome (trace-event JSON) or dftracer (.pfw lines for DFAnalyzer)")
        ->check(CLI::IsMember({"perfetto", "chrome", "dftracer"}))
        ->capture_default_str();
    sub->add_option(
           "-o,--output", opts->output,
           "File to write (default iolens.pftrace, iolens.json or iolens.pfw.gz); a name ending in .gz "
           "is gzip-compressed. With several recordings, a directory (default iolens-export) that gets one "
           "trace per recording, named after it")
        ->type_name("PATH")
        ->check(not_empty());
    sub->add_flag("-f,--force", opts->force, "Replace an existing output file");
    sub->add_option("--rank-env", opts->rank_env,
                    "Environment variable holding each process's rank (must have been recorded: give it to "
                    "record too)")
        ->type_name("VAR");
    sub->footer(
        "Examples:\n"
        "  iolens export -o train.pftrace iolens.data            # open in ui.perfetto.dev\n"
        "  iolens export --format dftracer -o train.pfw.gz iolens.data\n"
        "  iolens export --format dftracer -o job-42-trace job-42/*.iolens   # one .pfw.gz per node\n"
        "\n"
        "Exit status: 0 for a complete recording, 3 for a partial one (recorder killed, file\n"
        "truncated or damaged: what it holds is exported, and a warning says so), 1 when the file\n"
        "is not a readable recording or the output cannot be written, 2 for a usage error (an\n"
        "existing output without -f).");
    sub->callback([opts, &action]() {
        action = [opts]() -> int {
            exports::ExportOptions o;
            o.format = parse_format(opts->format);
            o.force = opts->force;
            o.builder.rank_env_override = opts->rank_env;
            if (opts->inputs.size() > 1) return export_many(*opts, o);
            o.output = opts->output.empty() ? exports::default_output(o.format) : opts->output;
            if (auto r = check_output_path(o.output, o.force, "the export"); !r) {
                spdlog::error("{}", r.error().message);
                return 2;
            }
            return export_one(opts->inputs.front(), o);
        };
    });
}

}  // namespace iolens::cli
