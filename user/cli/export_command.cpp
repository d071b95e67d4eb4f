// `iolens export`: a recording as a timeline trace for Perfetto, Chrome's
// trace viewers or DFTracer's analyzer (docs/export.md). No privileges.
#include <spdlog/spdlog.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "export/exporter.h"
#include "util/output_file.h"

namespace iolens::cli {

namespace {

struct ExportCliOptions {
    std::string input = "iolens.data";
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

}  // namespace

void register_export(CLI::App& app, Action& action) {
    auto opts = std::make_shared<ExportCliOptions>();
    auto* sub =
        app.add_subcommand("export", "Write a recording's events as a timeline trace (no privileges needed)");
    sub->add_option("file", opts->input, "Recording to read")->type_name("FILE")->capture_default_str();
    sub->add_option(
           "--format", opts->format,
           "perfetto (protobuf trace), chrome (trace-event JSON) or dftracer (.pfw lines for DFAnalyzer)")
        ->check(CLI::IsMember({"perfetto", "chrome", "dftracer"}))
        ->capture_default_str();
    sub->add_option(
           "-o,--output", opts->output,
           "File to write (default iolens.pftrace, iolens.json or iolens.pfw.gz); a name ending in .gz "
           "is gzip-compressed")
        ->type_name("FILE")
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
        "\n"
        "Exit status: 0 for a complete recording, 3 for a partial one (recorder killed, file\n"
        "truncated or damaged: what it holds is exported, and a warning says so), 1 when the file\n"
        "is not a readable recording or the output cannot be written, 2 for a usage error (an\n"
        "existing output without -f).");
    sub->callback([opts, &action]() {
        action = [opts]() -> int {
            exports::ExportOptions o;
            o.format = parse_format(opts->format);
            o.output = opts->output.empty() ? exports::default_output(o.format) : opts->output;
            o.force = opts->force;
            o.builder.rank_env_override = opts->rank_env;
            if (auto r = check_output_path(o.output, o.force, "the export"); !r) {
                spdlog::error("{}", r.error().message);
                return 2;
            }
            auto outcome = exports::export_recording(opts->input, o);
            if (!outcome) {
                spdlog::error("{}", outcome.error().message);
                return 1;
            }
            if (outcome->partial)
                spdlog::warn("partial recording, exported as far as it goes: {}", outcome->partial_reason);
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
        };
    });
}

}  // namespace iolens::cli
