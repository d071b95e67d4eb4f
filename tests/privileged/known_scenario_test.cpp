// The `known` workload: three processes (main, a forked child, a fork+exec'd
// child) touching every syscall class, with errors and pipe traffic. Every
// number below is from docs/workload.md, where each is derived call by call
// and checked against strace.
#include <gtest/gtest.h>

#include <map>

#include "support.h"

namespace iolens::test {
namespace {

using Buckets = std::map<uint64_t, uint64_t>;  // lo -> count

Buckets buckets_of(const nlohmann::json& hist)
{
    Buckets b;
    for (const auto& bucket : hist["buckets"])
        b[bucket["lo"].get<uint64_t>()] = bucket["count"].get<uint64_t>();
    return b;
}

struct Expect {
    uint64_t calls, errors, bytes, requested;
};

void expect_op(const nlohmann::json& ops, const std::string& op, const Expect& e, const std::string& who)
{
    SCOPED_TRACE(who + " " + op);
    EXPECT_EQ(ops[op]["calls"], e.calls);
    EXPECT_EQ(ops[op]["errors"], e.errors);
    EXPECT_EQ(ops[op]["bytes"], e.bytes);
    EXPECT_EQ(ops[op]["requested_bytes"], e.requested);
}

class KnownScenario : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        if (!is_root())
            return;
        dir = new TempDir();
        const std::string d = *dir / "d";
        result = new RunResult(run({iolens_bin(), "record", "-o", *dir / "rec.iolens", "--json",
                                    *dir / "report.json", "--", workload_bin(), "known", "--dir", d}));
        if (result->exit_status == 0)
            report = new nlohmann::json(load_json(*dir / "report.json"));
    }
    static void TearDownTestSuite()
    {
        delete report;
        delete result;
        delete dir;
    }
    void SetUp() override
    {
        if (!is_root())
            GTEST_SKIP() << "needs root (CAP_BPF, CAP_PERFMON) to load BPF programs";
        ASSERT_NE(report, nullptr) << "iolens record failed: " << result->exit_status << "\n" << result->err;
    }
    const nlohmann::json& process(const std::string& role)
    {
        const auto& j = *report;
        const auto main_pid = j["capture"]["pids"][0];
        for (const auto& p : j["processes"]) {
            if (role == "main" && p["pid"] == main_pid)
                return p;
            if (role == "exec-child" && p["comm"] == "exe")
                return p;
            if (role == "child-a" && p["pid"] != main_pid && p["comm"] != "exe")
                return p;
        }
        ADD_FAILURE() << "no process " << role;
        static nlohmann::json none = nlohmann::json::object();
        return none;
    }
    const nlohmann::json& file(const std::string& name)
    {
        const std::string path = *dir / ("d" + (name.empty() ? "" : "/" + name));
        for (const auto& f : (*report)["files"])
            if (f["path"] == path)
                return f;
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

TEST_F(KnownScenario, TotalsPerClass)
{
    const auto& t = (*report)["totals"];
    EXPECT_EQ((*report)["capture"]["lost_events"], 0);
    expect_op(t, "open", {7, 1, 0, 0}, "all");
    expect_op(t, "close", {14, 0, 0, 0}, "all");
    expect_op(t, "read", {34, 1, 249312, 265756}, "all");
    expect_op(t, "write", {25, 1, 155648, 155658}, "all");
    expect_op(t, "stat", {11, 1, 0, 0}, "all");
    expect_op(t, "seek", {5, 1, 0, 0}, "all");
    expect_op(t, "mmap", {1, 0, 131072, 131072}, "all");
    expect_op(t, "readdir", {2, 0, 80, 65536}, "all");
    expect_op(t, "sync", {3, 0, 0, 0}, "all");
}

TEST_F(KnownScenario, PerProcessThroughForkAndExec)
{
    ASSERT_EQ((*report)["processes"].size(), 3u);
    const auto& main = process("main");
    const auto& a = process("child-a");
    const auto& x = process("exec-child");
    expect_op(main["ops"], "open", {4, 1, 0, 0}, "main");
    expect_op(main["ops"], "close", {7, 0, 0, 0}, "main");
    expect_op(main["ops"], "write", {24, 0, 155648, 155648}, "main");
    expect_op(main["ops"], "stat", {8, 0, 0, 0}, "main");
    expect_op(main["ops"], "mmap", {1, 0, 131072, 131072}, "main");
    expect_op(main["ops"], "readdir", {2, 0, 80, 65536}, "main");
    expect_op(main["ops"], "sync", {3, 0, 0, 0}, "main");
    expect_op(main["ops"], "read", {0, 0, 0, 0}, "main");  // 256 pipe reads do not count

    expect_op(a["ops"], "open", {2, 0, 0, 0}, "child-a");
    expect_op(a["ops"], "close", {6, 0, 0, 0}, "child-a");
    expect_op(a["ops"], "read", {17, 1, 118240, 126492}, "child-a");
    expect_op(a["ops"], "seek", {5, 1, 0, 0}, "child-a");
    expect_op(a["ops"], "write", {0, 0, 0, 0}, "child-a");  // 256 pipe writes do not count
    EXPECT_EQ(a["ppid"], main["pid"]);
    EXPECT_EQ(a["exit_code"], 0);

    expect_op(x["ops"], "open", {1, 0, 0, 0}, "exec-child");
    expect_op(x["ops"], "close", {1, 0, 0, 0}, "exec-child");
    expect_op(x["ops"], "read", {17, 0, 131072, 139264}, "exec-child");
    expect_op(x["ops"], "write", {1, 1, 0, 10}, "exec-child");
    expect_op(x["ops"], "stat", {3, 1, 0, 0}, "exec-child");
    EXPECT_EQ(x["ppid"], main["pid"]);
    const std::vector<std::string> argv = {"iolens-workload", "known-exec-child", "--dir", *dir / "d"};
    EXPECT_EQ(x["cmdline"], argv);
}

TEST_F(KnownScenario, SizeHistogramBuckets)
{
    const auto& a = process("child-a");
    const auto& x = process("exec-child");
    const auto& main = process("main");
    EXPECT_EQ(buckets_of(a["ops"]["read"]["size_bytes"]),
              (Buckets{{0, 1}, {32, 1}, {512, 6}, {1024, 1}, {2048, 1}, {4096, 3}, {16384, 2}, {65536, 1}}));
    EXPECT_EQ(buckets_of(x["ops"]["read"]["size_bytes"]), (Buckets{{0, 1}, {8192, 16}}));
    EXPECT_EQ(buckets_of(main["ops"]["write"]["size_bytes"]), (Buckets{{4096, 22}, {32768, 2}}));
    EXPECT_EQ(buckets_of(main["ops"]["readdir"]["size_bytes"]), (Buckets{{0, 1}, {64, 1}}));
    EXPECT_EQ(buckets_of(main["ops"]["mmap"]["size_bytes"]), (Buckets{{131072, 1}}));
    // Every call is timed: one latency sample per call.
    uint64_t samples = 0;
    for (const auto& [lo, n] : buckets_of((*report)["totals"]["read"]["latency_ns"]))
        samples += n;
    EXPECT_EQ(samples, 34u);
}

TEST_F(KnownScenario, PerFileWithAbsolutePathsAndAccessPattern)
{
    const auto& k = file("known.dat");
    EXPECT_EQ(k["ops"]["read"]["calls"], 34);
    EXPECT_EQ(k["ops"]["read"]["bytes"], 249312);
    EXPECT_EQ(k["ops"]["write"]["calls"], 25);
    EXPECT_EQ(k["ops"]["open"]["calls"], 5);
    EXPECT_EQ(k["ops"]["close"]["calls"], 5);
    EXPECT_EQ(k["ops"]["stat"]["calls"], 2);  // the two fstats; path-based stats are per process only
    EXPECT_EQ(k["ops"]["mmap"]["calls"], 1);
    EXPECT_EQ(k["ops"]["sync"]["calls"], 3);
    EXPECT_EQ(k["ops"]["seek"]["calls"], 5);
    // Derived call by call from docs/workload.md: child-a 8 sequential and 7
    // random reads, exec-child 16 sequential reads, main 19 sequential and 5
    // random writes (EOF reads and failed calls move nothing and are not counted).
    EXPECT_EQ(k["sequential"], 43);
    EXPECT_EQ(k["random"], 12);

    const auto& d = file("");
    EXPECT_EQ(d["ops"]["open"]["calls"], 1);
    EXPECT_EQ(d["ops"]["readdir"]["calls"], 2);
    EXPECT_EQ(d["ops"]["close"]["calls"], 1);
    // Pipes and the missing file never become file entries.
    EXPECT_EQ(files_with_syscalls(*report), 2u);
}

TEST_F(KnownScenario, ReportRereadMatchesTheLiveOne)
{
    auto r = run({iolens_bin(), "report", *dir / "rec.iolens", "--json", *dir / "reread.json"});
    ASSERT_EQ(r.exit_status, 0) << r.err;
    EXPECT_EQ(load_json(*dir / "reread.json"), *report);
}

}  // namespace
}  // namespace iolens::test
