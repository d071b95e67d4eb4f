// `iolens diff` end to end (issue #17): the same job recorded twice, once
// with the main thread reading its own input (a stall) and once with a
// prefetch thread reading ahead: the diff says the stall share fell and
// io_stall is resolved; a run against itself, and a recording against its
// own JSON report, change nothing.
#include <gtest/gtest.h>

#include "support.h"

namespace iolens::test {
namespace {

class Diff : public ::testing::Test {
protected:
    void SetUp() override {
        if (!is_root()) GTEST_SKIP() << "needs root (CAP_BPF, CAP_PERFMON) to load BPF programs";
        file = dir / "data.bin";
        ASSERT_EQ(run({workload_bin(), "make-file", "--file", file, "--size", "128m"}).exit_status, 0);
    }
    std::string record(const std::string& name, const std::vector<std::string>& extra) {
        std::vector<std::string> cmd = {iolens_bin(), "record",
                                        "-o",         dir / (name + ".iolens"),
                                        "--json",     dir / (name + ".json"),
                                        "--",         workload_bin(),
                                        "stall",      "--file",
                                        file,         "--count",
                                        "100",        "--size",
                                        "1m",         "--compute-us",
                                        "2000",       "--direct"};
        cmd.insert(cmd.end(), extra.begin(), extra.end());
        const auto r = run(cmd);
        EXPECT_EQ(r.exit_status, 0) << r.err;
        return dir / (name + ".iolens");
    }
    static const nlohmann::json& row(const nlohmann::json& d, const std::string& name) {
        for (const auto& r : d["rows"])
            if (r["name"] == name) return r;
        static const nlohmann::json none = nlohmann::json::object();
        ADD_FAILURE() << "no row " << name;
        return none;
    }
    static std::string status_of(const nlohmann::json& d, const std::string& id) {
        for (const auto& f : d["findings"])
            if (f["id"] == id) return f["status"];
        return "absent";
    }
    nlohmann::json diff(const std::string& a, const std::string& b, RunResult* out = nullptr) {
        const auto r = run({iolens_bin(), "diff", a, b, "--json", dir / "diff.json", "-f"});
        EXPECT_EQ(r.exit_status, 0) << r.err;
        if (out) *out = r;
        return load_json(dir / "diff.json");
    }
    TempDir dir;
    std::string file;
};

TEST_F(Diff, APrefetchThreadResolvesTheStall) {
    const auto stalled = record("stalled", {});
    const auto prefetched = record("prefetched", {"--prefetch", "--depth", "4"});
    RunResult out;
    const auto d = diff(stalled, prefetched, &out);
    EXPECT_EQ(status_of(d, "io_stall"), "resolved") << d["findings"];
    const auto& stall = row(d, "rank 0 stall share");
    EXPECT_LT(stall["b"].get<double>(), stall["a"].get<double>());
    EXPECT_EQ(stall["verdict"], "better");
    EXPECT_EQ(row(d, "read calls")["verdict"], "same");
    EXPECT_EQ(row(d, "read bytes")["a"], 100 << 20);
    EXPECT_NE(d["headline"].get<std::string>().find("resolved: io_stall"), std::string::npos)
        << d["headline"];
    EXPECT_NE(d["notes"][0].get<std::string>().find("commands differ"), std::string::npos) << d["notes"];
    // The terminal view says the same.
    EXPECT_NE(out.out.find("resolved  io_stall"), std::string::npos) << out.out;
    EXPECT_NE(out.out.find("rank 0 stall share"), std::string::npos) << out.out;
}

TEST_F(Diff, ARunAgainstItselfOrItsOwnJsonReportChangesNothing) {
    const auto rec = record("run", {});
    for (const std::string& b : {rec, dir / "run.json"}) {
        SCOPED_TRACE(b);
        const auto d = diff(rec, b);
        EXPECT_EQ(d["headline"].get<std::string>().rfind("no change beyond noise", 0), 0u) << d["headline"];
        for (const auto& r : d["rows"]) EXPECT_EQ(r["verdict"], "same") << r;
        for (const auto& f : d["findings"]) EXPECT_EQ(f["status"], "unchanged") << f;
    }
}

TEST_F(Diff, UnreadableInputsAreRefused) {
    const auto rec = record("run", {});
    const std::string bogus = dir / "bogus.json";
    ASSERT_EQ(run({"/bin/sh", "-c", "echo '{\"schema\": \"iolens.report\", \"version\": 7}' > " + bogus})
                  .exit_status,
              0);
    auto r = run({iolens_bin(), "diff", rec, bogus});
    EXPECT_EQ(r.exit_status, 1);
    EXPECT_NE(r.err.find("newer iolens"), std::string::npos) << r.err;
    r = run({iolens_bin(), "diff", rec, dir / "missing.iolens"});
    EXPECT_EQ(r.exit_status, 1) << r.err;
    r = run({iolens_bin(), "diff", rec});
    EXPECT_EQ(r.exit_status, 2) << r.err;
}

}  // namespace
}  // namespace iolens::test
