#include <spdlog/spdlog.h>

#include <cstdio>

#include "cli/commands.h"
#include "cli/output.h"
#include "analysis/summarize.h"
#include "model/report_codec.h"
#include "report/html_renderer.h"
#include "util/output_file.h"

namespace iolens::cli {

namespace {

struct ReportCliOptions {
    std::vector<std::string> inputs = {"iolens.data"};
    bool allow_mixed = false;
    bool partial = false;
    std::string output;
    std::string folded;  // --folded[=WEIGHT]: print folded stacks instead of the report
    OutputOptions out;
};

// `report --partial REC -o PART`: the report of one recording, stored whole
// for a merge elsewhere (model/report_codec.h).
int write_partial(const ReportCliOptions& o) {
    if (o.inputs.size() != 1) {
        spdlog::error(
            "--partial takes one recording (a node's): merge the partials with iolens report *.part");
        return 2;
    }
    if (o.output.empty()) {
        spdlog::error("--partial needs -o FILE: where to write the partial");
        return 2;
    }
    if (same_file(o.output, o.inputs.front())) {
        spdlog::error("-o {} is the recording itself: give the partial a name of its own", o.output);
        return 2;
    }
    if (auto r = check_output_path(o.output, o.out.force, "the report partial"); !r) {
        spdlog::error("{}", r.error().message);
        return 2;
    }
    // The timeline too: the HTML report of the partial shows it (a merge of
    // many leaves it out, docs/multi-node.md).
    auto builder = builder_options(o.out);
    builder.timeline_bins = report::kHtmlTimelineBins;
    auto report = analysis::summarize_job(o.inputs, builder);
    if (!report) {
        spdlog::error("{}", report.error().message);
        return 1;
    }
    if (auto r =
            write_output_file(o.output, o.out.force, "the report partial", model::encode_partial(*report));
        !r) {
        spdlog::error("{}", r.error().message);
        return 1;
    }
    if (report->capture.partial) spdlog::warn("partial recording: {}", report->capture.partial_reason);
    return report->capture.partial ? 3 : 0;
}

}  // namespace

void register_report(CLI::App& app, Action& action) {
    auto opts = std::make_shared<ReportCliOptions>();
    auto* sub = app.add_subcommand("report", "Summarize a recording (no privileges needed)");
    sub->add_option("file", opts->inputs,
                    "Recording to read; several (the nodes of one job: job-42/*.iolens) are merged into one "
                    "report of the whole job")
        ->type_name("FILE...")
        ->capture_default_str();
    sub->add_flag("--allow-mixed", opts->allow_mixed,
                  "Merge recordings of different jobs (their job ids differ) instead of refusing");
    sub->add_flag("--partial", opts->partial,
                  "Write this recording's report as a partial (-o FILE) instead of printing it: partials of "
                  "many nodes, made where each recording is, merge with iolens report *.part");
    sub->add_option("-o,--output", opts->output, "The partial's file (with --partial)")->type_name("FILE");
    sub->add_flag("--folded{bytes}", opts->folded,
                  "Print the call sites (a recording made with record --stacks) as folded stacks for "
                  "flame-graph tools instead of the report, weighted by bytes (read + written; the "
                  "default), time (ns in the calls) or calls: --folded=time")
        ->type_name("WEIGHT");
    sub->add_flag("-f,--force", opts->out.force, "Replace an existing JSON or HTML report or partial");
    add_output_options(
        sub, opts->out,
        "Environment variable holding each process's rank (must have been recorded: give it to "
        "record too)");
    sub->footer(
        "Exit status: 0 for a complete recording, 3 for a partial one (recorder killed, file\n"
        "truncated or damaged: the report is printed and marked partial), 1 when the file is not a\n"
        "readable recording, 2 for a usage error.");
    sub->callback([opts, &action]() {
        action = [opts]() -> int {
            if (opts->partial) return write_partial(*opts);
            if (!opts->output.empty()) {
                spdlog::error("-o is the file of --partial: use --json FILE or --html FILE for a report");
                return 2;
            }
            for (const auto& input : opts->inputs)
                if (auto r = check_outputs(opts->out, input); !r) {
                    spdlog::error("{}", r.error().message);
                    return 2;
                }
            if (!opts->out.rank_env.empty() || opts->out.max_files != OutputOptions{}.max_files)
                for (const auto& input : opts->inputs)
                    if (model::is_partial_file(input)) {
                        spdlog::warn(
                            "{} is a partial: it keeps the --rank-env and --max-files it was made "
                            "with (give them to report --partial)",
                            input);
                        break;
                    }
            auto report = analysis::summarize_job(opts->inputs, builder_options(opts->out),
                                                  model::MergeOptions{opts->allow_mixed});
            if (!report) {
                spdlog::error("{}", report.error().message);
                return 1;
            }
            if (report->capture.partial) spdlog::warn("partial report: {}", report->capture.partial_reason);
            if (!opts->folded.empty()) {
                if (opts->folded != "bytes" && opts->folded != "time" && opts->folded != "calls") {
                    spdlog::error("--folded takes bytes, time or calls, not '{}'", opts->folded);
                    return 2;
                }
                if (opts->inputs.size() != 1) {
                    spdlog::error("--folded takes one recording (call sites are not merged across nodes)");
                    return 2;
                }
                if (!report->call_sites) {
                    spdlog::error("no stacks in this recording: record it with iolens record --stacks");
                    return 1;
                }
                std::fputs(model::folded_stacks(*report->call_sites, opts->folded).c_str(), stdout);
                return report->capture.partial ? 3 : 0;
            }
            if (auto r = emit_report(*report, opts->out); !r) {
                spdlog::error("{}", r.error().message);
                return 1;
            }
            return report->capture.partial ? 3 : 0;
        };
    });
}

}  // namespace iolens::cli
