#include "selftest/run.h"

#include "analysis/summarize.h"

#include <fcntl.h>
#include <limits.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <sstream>

#include "capture/record_session.h"
#include "probes/catalog.h"
#include "selftest/scenario.h"
#include "selftest/uring.h"
#include "util/errno_text.h"
#include "util/fd.h"

namespace iolens::selftest {

namespace {

// This binary, to relaunch as the driver: the report then names it by path.
std::string self_exe() {
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    if (n <= 0) return "/proc/self/exe";
    return std::string(buf, static_cast<size_t>(n));
}

// Reads "<role> <pid> <status>" lines the driver wrote to the pipe.
void parse_workers(const std::string& text, RunFacts& facts) {
    std::istringstream in(text);
    char role;
    uint32_t pid;
    int status;
    while (in >> role >> pid >> status) {
        facts.worker_pid[role] = pid;
        facts.worker_status[role] = status;
    }
}

struct ScratchGuard {
    std::string dir;
    bool keep;
    ~ScratchGuard() {
        if (!keep && !dir.empty()) remove_scratch(dir);
    }
};

}  // namespace

bool passed(const Outcome& o) {
    for (const auto& c : o.checks)
        if (c.verdict == Verdict::Fail) return false;
    return true;
}

Result<Outcome> run_self_test(const Options& opt, const probes::Features& features) {
    if (!features.can_trace())
        return make_error(
            "iolens self-test records with BPF: it needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN): run it "
            "as root");
    auto prepared = prepare_files(opt.base_dir);
    if (!prepared) return prepared.error();
    ScratchGuard guard{prepared->dir, opt.keep};
    Outcome out;
    out.scratch_dir = prepared->dir;
    out.force_hook = opt.force_hook;
    out.storage = prepared->storage;

    RunFacts facts;
    facts.prepared = *prepared;
    facts.io_uring_unusable = io_uring_unusable();
    const std::string warm = prepared->dir + "/" + kWarmFile, cold = prepared->dir + "/" + kColdFile;
    auto w = warm_up(warm);
    if (!w) return w.error();
    facts.warm_before = *w;
    // Held until the checks are done: nothing may evict the warm file meanwhile.
    auto pin = pin_in_cache(warm);
    if (!pin)
        spdlog::warn(
            "self-test: {}: reclaim could evict part of {} during the run (its hit count would then fail)",
            pin.error().message, kWarmFile);

    // The driver tells us its workers' pids through this pipe (inherited
    // across exec: the write end is not close-on-exec).
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) return errno_error("cannot create a pipe");
    UniqueFd read_end(report[0]), write_end(report[1]);
    UniqueFd child_end(fcntl(write_end.get(), F_DUPFD, 10));  // a plain copy without FD_CLOEXEC
    if (!child_end) return errno_error("cannot duplicate a pipe");
    write_end.reset();

    capture::RecordOptions ro;
    ro.command = {self_exe(),    kWorkloadCommand, "--dir",
                  prepared->dir, "--report-fd",    std::to_string(child_end.get())};
    ro.output_path = prepared->dir + "/selftest.iolens";
    ro.force = true;
    ro.probe.force_hook = opt.force_hook;
    // Evict as late as possible: loading the probes takes a while, and
    // nothing touches cold.bin in between.
    auto c = evict(cold);
    if (!c) return c.error();
    facts.cold_before = *c;
    auto rec = capture::run_record(ro, features);
    child_end.reset();  // the driver's copy is then the last: its exit ends the pipe
    std::string text;
    char buf[512];
    for (ssize_t n; (n = read(read_end.get(), buf, sizeof(buf))) > 0;)
        text.append(buf, static_cast<size_t>(n));
    read_end.reset();
    if (!rec) {
        out.record_error = rec.error().message;
        out.checks.push_back(
            {"record", "syscalls", "", "", Verdict::Fail, "iolens record failed: " + rec.error().message});
        return out;
    }
    parse_workers(text, facts);
    auto summary = analysis::summarize(ro.output_path);
    if (!summary) {
        out.record_error =
            "cannot read back the recording " + ro.output_path + ": " + summary.error().message;
        out.checks.push_back({"record", "syscalls", "", "", Verdict::Fail, out.record_error});
        return out;
    }
    const model::Report& report_model = *summary;
    facts.driver_pid = report_model.capture.pids.empty() ? 0 : report_model.capture.pids[0];
    facts.driver_status = rec->exit_status;
    out.probes = report_model.capture.probes;
    std::map<std::string, bool> planned;
    for (const auto& p : probes::plan_probes(features, {opt.force_hook, ""}))
        planned[p.family] = p.available && !p.attempts.empty();
    out.checks = load_checks(planned, out.probes);
    for (auto& c : evaluate(report_model, facts)) out.checks.push_back(std::move(c));
    if (opt.keep) spdlog::info("self-test files and recording kept in {}", prepared->dir);
    return out;
}

}  // namespace iolens::selftest
