#pragma once
// Compares the report iolens produced for the self-test's workload with what
// the workload is known to have done: one check per figure of
// selftest/scenario.h, in its order. Pure: no kernel, no files, so the
// verdict logic is unit-tested on synthetic reports.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/report.h"
#include "selftest/prepare.h"
#include "selftest/scenario.h"

namespace iolens::selftest {

enum class Verdict { Pass, Fail, Unavailable };
const char* verdict_name(Verdict v);  // "PASS", "FAIL", "UNAVAILABLE"

struct Check {
    std::string name;      // "A read calls"
    std::string family;    // the probe family whose figure it is ("syscalls", "block", ...)
    std::string expected;  // empty when unavailable
    std::string got;
    Verdict verdict = Verdict::Fail;
    std::string reason;  // why unavailable, or what failed
};

// What the self-test knows about its own run, besides the report.
struct RunFacts {
    uint32_t driver_pid = 0;
    int driver_status = 0;
    std::map<char, uint32_t> worker_pid;  // role -> pid, as the driver reported
    std::map<char, int> worker_status;
    Prepared prepared;
    Residency warm_before;  // just before recording
    Residency cold_before;
    std::string io_uring_unusable;  // why this process cannot make an io_uring, or ""
};

// A figure whose probe family is not live, or whose set-up the run could not
// make (RunFacts), is UNAVAILABLE with the reason; every figure is listed.
std::vector<Check> evaluate(const model::Report& report, const RunFacts& facts);

// A family `iolens check` plans for this kernel (planned: family -> true) is
// expected to load and attach: when it does not (a verifier rejection on
// this kernel, say), that is a FAIL of iolens, never a quiet UNAVAILABLE of
// its figures. One check per planned family, in the probes' order.
std::vector<Check> load_checks(const std::map<std::string, bool>& planned,
                               const std::vector<recording::ProbeStatus>& probes);

}  // namespace iolens::selftest
