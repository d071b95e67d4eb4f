// The `known` workload: three processes (main, a forked child, a fork+exec'd
// child) touching every syscall class, with errors and pipe traffic. Every
// number asserted here is from tools/workload/known.h, the table the workload
// is written against (docs/workload.md shows the same tables; a unit test
// keeps them equal).
#include <gtest/gtest.h>

#include <iterator>
#include <map>
#include <set>
#include <string_view>

#include "../../tools/workload/known.h"
#include "support.h"

namespace iolens::test {
namespace {

namespace known = wl::known;

using Buckets = std::map<uint64_t, uint64_t>;  // lo -> count

Buckets buckets_of(const nlohmann::json& hist) {
    Buckets b;
    for (const auto& bucket : hist["buckets"])
        b[bucket["lo"].get<uint64_t>()] = bucket["count"].get<uint64_t>();
    return b;
}

// The table's row for (who, op), or zeros: a class the table does not list is 0.
template <size_t N>
known::Count count_of(const known::Count (&rows)[N], std::string_view who, std::string_view op) {
    for (const auto& row : rows)
        if (row.who == who && row.op == op) return row;
    return {};
}

// Every class of one process or file, as the table says.
template <size_t N>
void expect_ops(const nlohmann::json& ops, const known::Count (&rows)[N], const std::string& who) {
    for (const char* op : known::kClasses) {
        SCOPED_TRACE(who + " " + op);
        const known::Count e = count_of(rows, who, op);
        EXPECT_EQ(ops[op]["calls"], e.calls);
        EXPECT_EQ(ops[op]["errors"], e.errors);
        EXPECT_EQ(ops[op]["bytes"], e.bytes);
        EXPECT_EQ(ops[op]["requested_bytes"], e.requested);
    }
}

class KnownScenario : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        if (!is_root()) return;
        dir = new TempDir();
        const std::string d = *dir / "d";
        result = new RunResult(run({iolens_bin(), "record", "-o", *dir / "rec.iolens", "--json",
                                    *dir / "report.json", "--", workload_bin(), "known", "--dir", d}));
        if (result->exit_status == 0) report = new nlohmann::json(load_json(*dir / "report.json"));
    }
    static void TearDownTestSuite() {
        delete report;
        delete result;
        delete dir;
    }
    void SetUp() override {
        if (!is_root()) GTEST_SKIP() << "needs root (CAP_BPF, CAP_PERFMON) to load BPF programs";
        ASSERT_NE(report, nullptr) << "iolens record failed: " << result->exit_status << "\n" << result->err;
    }
    const nlohmann::json& process(const std::string& role) {
        const auto& j = *report;
        const auto main_pid = j["capture"]["pids"][0];
        for (const auto& p : j["processes"]) {
            if (role == "main" && p["pid"] == main_pid) return p;
            if (role == "exec-child" && p["comm"] == "exe") return p;
            if (role == "child-a" && p["pid"] != main_pid && p["comm"] != "exe") return p;
        }
        ADD_FAILURE() << "no process " << role;
        static nlohmann::json none = nlohmann::json::object();
        return none;
    }
    // A file of the table by its name there: known.dat, or "D" for the directory.
    const nlohmann::json& file(const std::string& name) {
        const std::string path = *dir / ("d" + (name == "D" ? "" : "/" + name));
        for (const auto& f : (*report)["files"])
            if (f["path"] == path) return f;
        ADD_FAILURE() << "no file " << path;
        static nlohmann::json none = nlohmann::json::object();
        return none;
    }
    static TempDir* dir;
    static RunResult* result;
    static nlohmann::json* report;
};
TempDir* KnownScenario::dir = nullptr;
RunResult* KnownScenario::result = nullptr;
nlohmann::json* KnownScenario::report = nullptr;

TEST_F(KnownScenario, TotalsPerClass) {
    EXPECT_EQ((*report)["capture"]["lost_events"], 0);
    // The totals are the sum of the processes' rows.
    const auto& t = (*report)["totals"];
    for (const char* op : known::kClasses) {
        SCOPED_TRACE(std::string("all ") + op);
        known::Count sum{};
        for (const auto& p : known::kProcesses) {
            const known::Count e = count_of(known::kProcessCounts, p.role, op);
            sum.calls += e.calls;
            sum.errors += e.errors;
            sum.bytes += e.bytes;
            sum.requested += e.requested;
        }
        EXPECT_EQ(t[op]["calls"], sum.calls);
        EXPECT_EQ(t[op]["errors"], sum.errors);
        EXPECT_EQ(t[op]["bytes"], sum.bytes);
        EXPECT_EQ(t[op]["requested_bytes"], sum.requested);
    }
}

TEST_F(KnownScenario, PerProcessThroughForkAndExec) {
    ASSERT_EQ((*report)["processes"].size(), std::size(known::kProcesses));
    const auto& main = process("main");
    for (const auto& p : known::kProcesses) {
        const auto& j = process(p.role);
        expect_ops(j["ops"], known::kProcessCounts, p.role);
        EXPECT_EQ(j["comm"], p.comm) << p.role;
        if (std::string_view(p.role) != "main") {
            EXPECT_EQ(j["ppid"], main["pid"]) << p.role;
            EXPECT_EQ(j["exit_code"], 0) << p.role;
        }
    }
    const std::vector<std::string> argv = {known::kExecArgv0, known::kExecMode, "--dir", *dir / "d"};
    EXPECT_EQ(process("exec-child")["cmdline"], argv);
}

TEST_F(KnownScenario, SizeHistogramBuckets) {
    std::map<std::pair<std::string, std::string>, Buckets> expected;
    for (const auto& b : known::kSizeBuckets) expected[{b.who, b.op}][b.lo] = b.count;
    for (const auto& [key, buckets] : expected) {
        const auto& [who, op] = key;
        EXPECT_EQ(buckets_of(process(who)["ops"][op]["size_bytes"]), buckets) << who << " " << op;
    }
    // Every call is timed: one latency sample per call.
    uint64_t samples = 0, reads = 0;
    for (const auto& [lo, n] : buckets_of((*report)["totals"]["read"]["latency_ns"])) samples += n;
    for (const auto& c : known::kProcessCounts) reads += std::string_view(c.op) == "read" ? c.calls : 0;
    EXPECT_EQ(samples, reads);
}

TEST_F(KnownScenario, PerFileWithAbsolutePathsAndAccessPattern) {
    std::set<std::string> files;
    for (const auto& c : known::kFileCounts) files.insert(c.who);
    for (const auto& name : files) expect_ops(file(name)["ops"], known::kFileCounts, name);
    const auto& k = file(known::kDataName);
    EXPECT_EQ(k["sequential"], known::kDataSequential);
    EXPECT_EQ(k["random"], known::kDataRandom);
    // Pipes and the missing file never become file entries.
    EXPECT_EQ(files_with_syscalls(*report), files.size());
}

TEST_F(KnownScenario, ReportRereadMatchesTheLiveOne) {
    auto r = run({iolens_bin(), "report", *dir / "rec.iolens", "--json", *dir / "reread.json"});
    ASSERT_EQ(r.exit_status, 0) << r.err;
    EXPECT_EQ(load_json(*dir / "reread.json"), *report);
}

}  // namespace
}  // namespace iolens::test
