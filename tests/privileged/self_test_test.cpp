// `iolens self-test` on this machine's kernel: it must pass, with the exact
// counts of its scenario, and say UNAVAILABLE (not PASS, not FAIL) for the
// cold-read checks where the directory cannot give a cold read.
#include <gtest/gtest.h>
#include <sys/statfs.h>
#include <sys/stat.h>

#include "support.h"

namespace iolens::test {
namespace {

class SelfTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!is_root()) GTEST_SKIP() << "needs root (CAP_BPF, CAP_PERFMON) to load BPF programs";
    }
    nlohmann::json self_test(const std::string& dir) {
        last = run({iolens_bin(), "self-test", "--dir", dir, "--json", out / "verdict.json"});
        return load_json(out / "verdict.json");
    }
    static nlohmann::json check(const nlohmann::json& v, const std::string& name) {
        for (const auto& c : v["checks"])
            if (c["name"] == name) return c;
        ADD_FAILURE() << "no check named " << name;
        return nlohmann::json::object();
    }
    TempDir out;
    RunResult last;
};

TEST_F(SelfTest, PassesWithExactCountsOnThisKernel) {
    // /var/tmp: on the root disk on this machine, so the cold read reaches
    // the block layer.
    auto v = self_test("/var/tmp");
    ASSERT_EQ(last.exit_status, 0) << last.out << last.err;
    EXPECT_EQ(v["verdict"], "pass");
    EXPECT_EQ(v["counts"]["fail"], 0);
    // The numbers themselves, not just the verdicts: A reads 16 x 4 KiB,
    // 4 x 64 KiB, 2 x 1 MiB and 5 x 1000 B (user/selftest/scenario.cpp).
    auto a = check(v, "A read calls");
    EXPECT_EQ(a["verdict"], "PASS");
    EXPECT_EQ(a["got"], "27");
    EXPECT_EQ(check(v, "A read bytes")["got"],
              std::to_string(16 * 4096 + 4 * 65536 + 2 * 1048576 + 5 * 1000));
    EXPECT_EQ(check(v, "A read sizes (log2 bucket:count)")["got"], "512:5 4096:16 65536:4 1048576:2");
    EXPECT_EQ(check(v, "A write calls (10 pipe writes excluded)")["got"], "3");
    EXPECT_EQ(check(v, "C read calls")["got"], "33");
    EXPECT_EQ(check(v, "processes traced (driver + 4 workers)")["got"], "5");
    // D's ring requests, where this kernel runs the io_uring family (6.0+).
    const auto d = check(v, "D read calls (io_uring requests)");
    if (d["verdict"] != "UNAVAILABLE") {
        EXPECT_EQ(d["got"], "12");
        EXPECT_EQ(check(v, "D write bytes (io_uring requests)")["got"], std::to_string(4 * 65536));
    }
    for (const auto& c : v["checks"])
        if (c["family"] == "syscalls" || c["family"] == "process")
            EXPECT_EQ(c["verdict"], "PASS") << c.dump();
    // Where this kernel has the page-cache and block probes and /var/tmp is on
    // a disk, the cold read is judged; otherwise it must say why not.
    for (const char* name : {"cold.bin page-cache miss bytes", "C block read bytes"}) {
        auto c = check(v, name);
        if (c["verdict"] == "UNAVAILABLE")
            EXPECT_FALSE(c["reason"].get<std::string>().empty()) << name;
        else
            EXPECT_EQ(c["got"], std::to_string(2 << 20)) << name;
    }
    if (v["storage"]["block_device"] == true) EXPECT_EQ(check(v, "C block read bytes")["verdict"], "PASS");
    // The scratch directory is removed afterwards.
    struct stat st {};
    EXPECT_NE(stat(v["dir"].get<std::string>().c_str(), &st), 0);
}

TEST_F(SelfTest, RawTracepointFallbackGivesTheSameCounts) {
    last = run({iolens_bin(), "self-test", "--force-hook", "raw_tp", "--dir", "/var/tmp", "--json",
                out / "raw.json"});
    ASSERT_EQ(last.exit_status, 0) << last.out << last.err;
    auto v = load_json(out / "raw.json");
    EXPECT_EQ(v["force_hook"], "raw_tp");
    for (const auto& p : v["probes"])
        if (p["attached"] == true)
            EXPECT_EQ(p["hook"].get<std::string>().rfind("raw_tp/", 0), 0u) << p.dump();
    EXPECT_EQ(check(v, "B read calls")["got"], "14");
    EXPECT_EQ(check(v, "B read sizes (log2 bucket:count)")["got"], "4096:7 8192:3 65536:3 1048576:1");
    EXPECT_EQ(v["counts"]["fail"], 0);
}

TEST_F(SelfTest, MemoryFileSystemReportsColdChecksUnavailable) {
    struct statfs sf {};
    if (statfs("/dev/shm", &sf) != 0 || sf.f_type != 0x01021994) GTEST_SKIP() << "no tmpfs at /dev/shm";
    auto v = self_test("/dev/shm");
    ASSERT_EQ(last.exit_status, 0) << last.out << last.err;
    EXPECT_EQ(v["storage"]["fs_type"], "tmpfs");
    for (const char* name : {"cold.bin page-cache miss bytes", "C block read bytes"}) {
        auto c = check(v, name);
        EXPECT_EQ(c["verdict"], "UNAVAILABLE") << name;
        EXPECT_NE(c["reason"].get<std::string>().find("tmpfs"), std::string::npos) << c.dump();
    }
    EXPECT_EQ(check(v, "B read calls")["verdict"], "PASS");
}

TEST_F(SelfTest, BadDirectoryIsAClearError) {
    auto r = run({iolens_bin(), "self-test", "--dir", "/nonexistent/iolens"});
    EXPECT_EQ(r.exit_status, 1);
    EXPECT_NE(r.err.find("--dir /nonexistent/iolens"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace iolens::test
