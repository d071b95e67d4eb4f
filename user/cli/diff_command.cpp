#include <spdlog/spdlog.h>

#include <cstdio>

#include "analysis/diff.h"
#include "cli/commands.h"
#include "report/diff_renderer.h"
#include "util/output_file.h"

namespace iolens::cli {

namespace {

struct DiffCliOptions {
    std::string a, b;
    std::string json_path;
    bool force = false;
};

int run_diff(const DiffCliOptions& o) {
    if (!o.json_path.empty())
        if (auto r = check_output_path(o.json_path, o.force, "the JSON diff"); !r) {
            spdlog::error("{}", r.error().message);
            return 2;
        }
    auto a = analysis::load_diff_side(o.a);
    if (!a) {
        spdlog::error("{}", a.error().message);
        return 1;
    }
    auto b = analysis::load_diff_side(o.b);
    if (!b) {
        spdlog::error("{}", b.error().message);
        return 1;
    }
    const auto d = analysis::diff_reports(*a, *b);
    // The JSON first: a closed stdout must not cost the file.
    if (!o.json_path.empty()) {
        const std::string text =
            report::diff_to_json(d).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
        if (auto r = write_output_file(o.json_path, o.force, "the JSON diff", text); !r) {
            spdlog::error("{}", r.error().message);
            return 1;
        }
    }
    const std::string text = report::diff_to_text(d);
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return 0;
}

}  // namespace

void register_diff(CLI::App& app, Action& action) {
    auto opts = std::make_shared<DiffCliOptions>();
    auto* sub = app.add_subcommand(
        "diff", "Compare two runs of a job: recordings or JSON reports (no privileges needed)");
    sub->add_option("a", opts->a, "The run before (A): a recording or a --json report")
        ->type_name("A")
        ->required();
    sub->add_option("b", opts->b, "The run after (B): a recording or a --json report")
        ->type_name("B")
        ->required();
    sub->add_option("--json", opts->json_path, "Also write the diff as JSON to FILE")->type_name("FILE");
    sub->add_flag("-f,--force", opts->force, "Replace an existing JSON file");
    sub->footer(
        "Each figure of both runs side by side, with its change and a verdict: better or worse (past\n"
        "the noise: the runs' own spread between epochs), within noise, same, or changed. Findings\n"
        "resolved, new and unchanged; data files only in one run; read size and latency histograms.\n"
        "Exit status: 0, 1 when an input cannot be read (not a recording, or a JSON report of a newer\n"
        "iolens), 2 for a usage error.");
    sub->callback([opts, &action]() { action = [opts]() { return run_diff(*opts); }; });
}

}  // namespace iolens::cli
