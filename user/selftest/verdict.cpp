#include "selftest/verdict.h"

#include "util/json_text.h"
#include "util/output_file.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "probes/catalog.h"
#include "util/errno_text.h"

namespace iolens::selftest {

namespace {

struct Tally {
    size_t pass = 0, fail = 0, unavailable = 0;
};

Tally tally(const Outcome& o) {
    Tally t;
    for (const auto& c : o.checks)
        (c.verdict == Verdict::Pass ? t.pass : c.verdict == Verdict::Fail ? t.fail : t.unavailable)++;
    return t;
}

}  // namespace

void print_outcome(const Outcome& o) {
    std::printf("\nself-test directory %s (%s%s)\n", o.scratch_dir.c_str(), o.storage.fs_type.c_str(),
                o.storage.block_device ? (", block device " + o.storage.device).c_str() : "");
    if (!o.probes.empty()) {
        std::printf("\n%-10s %-9s %s\n", "probe", "attached", "hook / reason");
        for (const auto& p : o.probes)
            std::printf("%-10s %-9s %s\n", p.name.c_str(), p.attached ? "yes" : "no",
                        p.attached ? p.hook.c_str() : p.reason.c_str());
    }
    // Columns as wide as their longest entry (a read-size histogram is long).
    int name_w = 5, value_w = 8;
    for (const auto& c : o.checks) {
        name_w = std::max(name_w, static_cast<int>(c.name.size()));
        value_w = std::max({value_w, static_cast<int>(c.expected.size()), static_cast<int>(c.got.size())});
    }
    std::printf("\n%-*s  %-*s  %-*s  %s\n", name_w, "check", value_w, "expected", value_w, "got", "verdict");
    for (const auto& c : o.checks) {
        std::string v = verdict_name(c.verdict);
        if (!c.reason.empty()) v += " (" + c.reason + ")";
        std::printf("%-*s  %-*s  %-*s  %s\n", name_w, c.name.c_str(), value_w,
                    c.expected.empty() ? "-" : c.expected.c_str(), value_w,
                    c.got.empty() ? "-" : c.got.c_str(), v.c_str());
    }
    auto t = tally(o);
    std::printf("\nself-test %s: %zu passed, %zu failed, %zu unavailable\n", passed(o) ? "PASSED" : "FAILED",
                t.pass, t.fail, t.unavailable);
}

nlohmann::json outcome_json(const Outcome& o, const probes::Features& f) {
    nlohmann::json j;
    j["kernel"] = f.kernel_release;
    j["verdict"] = passed(o) ? "pass" : "fail";
    j["force_hook"] = o.force_hook;
    auto t = tally(o);
    j["counts"] = {{"pass", t.pass}, {"fail", t.fail}, {"unavailable", t.unavailable}};
    j["dir"] = o.scratch_dir;
    j["storage"] = {{"fs_type", o.storage.fs_type},
                    {"block_device", o.storage.block_device},
                    {"device", o.storage.device},
                    {"memory_backed", o.storage.memory_backed}};
    j["features"] = {{"btf", f.btf}, {"task_storage", f.task_storage}, {"ringbuf", f.ringbuf}};
    // The plan (what `iolens check` says) and what was attached for the run:
    // a family can be planned and still fail to load or attach.
    j["plan"] = nlohmann::json::array();
    for (const auto& p : probes::plan_probes(f))
        j["plan"].push_back({{"family", p.family},
                             {"available", p.available},
                             {"hook", p.hook},
                             {"reason", p.reason},
                             {"degraded", p.degraded}});
    j["probes"] = nlohmann::json::array();
    for (const auto& p : o.probes)
        j["probes"].push_back(
            {{"family", p.name}, {"attached", p.attached}, {"hook", p.hook}, {"reason", p.reason}});
    if (!o.record_error.empty()) j["record_error"] = o.record_error;
    j["checks"] = nlohmann::json::array();
    for (const auto& c : o.checks)
        j["checks"].push_back({{"name", c.name},
                               {"family", c.family},
                               {"expected", c.expected},
                               {"got", c.got},
                               {"verdict", verdict_name(c.verdict)},
                               {"reason", c.reason}});
    return j;
}

Result<void> write_json_file(const std::string& path, bool force, const nlohmann::json& j) {
    return write_output_file(path, force, "the self-test verdict", json_dump(j, 2) + "\n");
}

}  // namespace iolens::selftest
