// `iolens self-test`: can iolens be trusted on this node? Records a workload
// whose I/O is known exactly and prints, per figure, what was expected, what
// iolens reported, and PASS, FAIL or UNAVAILABLE (with the reason).
// Also registers the hidden `__self-test-workload` subcommand: the traced
// driver that iolens relaunches itself as.
#include <spdlog/spdlog.h>

#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/node_text.h"
#include "probes/features.h"
#include "selftest/run.h"
#include "selftest/verdict.h"
#include "selftest/workload.h"
#include "util/output_file.h"

namespace iolens::cli {

namespace {

struct SelfTestCliOptions {
    selftest::Options run;
    std::string json_path;
    bool force = false;
};

int run_self_test(const SelfTestCliOptions& opts) {
    if (!opts.json_path.empty())
        if (auto r = check_output_path(opts.json_path, opts.force, "the self-test verdict"); !r) {
            spdlog::error("{}", r.error().message);
            return 2;
        }
    auto f = probes::Features::probe();
    bool can_record = print_node(f);
    std::fflush(stdout);
    if (!f.can_trace()) {
        spdlog::error("iolens self-test needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN): run it as root");
        return 1;
    }
    if (!can_record)
        spdlog::warn("the probe plan above says record cannot run here; trying anyway to show how it fails");
    auto outcome = selftest::run_self_test(opts.run, f);
    if (!outcome) {
        spdlog::error("{}", outcome.error().message);
        return outcome.error().exit_status == 0 ? 1 : outcome.error().exit_status;
    }
    selftest::print_outcome(*outcome);
    std::fflush(stdout);
    if (!opts.json_path.empty())
        if (auto r =
                selftest::write_json_file(opts.json_path, opts.force, selftest::outcome_json(*outcome, f));
            !r) {
            spdlog::error("{}", r.error().message);
            return 1;
        }
    return selftest::passed(*outcome) ? 0 : 1;
}

}  // namespace

void register_self_test(CLI::App& app, Action& action) {
    auto opts = std::make_shared<SelfTestCliOptions>();
    auto* sub =
        app.add_subcommand("self-test", "Record known I/O and check iolens reports it exactly on this node");
    sub->add_option("--dir", opts->run.base_dir,
                    "Directory to create the test files in (use one on the disk you care about)")
        ->type_name("DIR")
        ->capture_default_str();
    sub->add_option("--json", opts->json_path, "Also write the verdict as JSON to this file")
        ->type_name("FILE");
    sub->add_flag("-f,--force", opts->force, "Replace an existing --json file");
    sub->add_flag("--keep", opts->run.keep, "Keep the test files and the recording");
    // Hidden (empty group), as record's: runs the fallback hooks on a kernel
    // that has the preferred ones (the kernel matrix runs both).
    sub->add_option("--force-hook", opts->run.force_hook, "Use only tp_btf or raw_tp hooks")
        ->check(CLI::IsMember({"tp_btf", "raw_tp"}))
        ->group("");
    sub->footer("Exit status: 0 when no check failed (UNAVAILABLE checks do not fail), 1 otherwise.");
    sub->callback([opts, &action]() { action = [opts]() { return run_self_test(*opts); }; });

    // The traced driver. Hidden (empty group): only the self-test starts it.
    auto dir = std::make_shared<std::string>();
    auto fd = std::make_shared<int>(-1);
    auto* w = app.add_subcommand(selftest::kWorkloadCommand, "internal: the self-test's workload");
    w->group("");
    w->add_option("--dir", *dir)->required();
    w->add_option("--report-fd", *fd)->required()->check(CLI::NonNegativeNumber);
    w->callback([dir, fd, &action]() { action = [dir, fd]() { return selftest::run_workload(*dir, *fd); }; });
}

}  // namespace iolens::cli
