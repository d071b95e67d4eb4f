// The self-test's verdict logic on synthetic reports: a report that matches
// the scenario passes every check, one wrong count fails exactly that check,
// and figures a kernel or a file system cannot give are UNAVAILABLE with the
// reason, never PASS and never FAIL.
#include <gtest/gtest.h>

#include <algorithm>

#include "selftest/checks.h"
#include "selftest/scenario.h"

namespace iolens::selftest {
namespace {

constexpr uint32_t kDriver = 100;

model::ProcessStats worker(uint32_t pid, const Expected& e)
{
    model::ProcessStats p;
    p.info.pid = pid;
    p.info.ppid = kDriver;
    p.ops[IOLENS_OP_READ].calls = e.read_calls;
    p.ops[IOLENS_OP_READ].bytes = e.read_bytes;
    p.ops[IOLENS_OP_WRITE].calls = e.write_calls;
    p.ops[IOLENS_OP_WRITE].bytes = e.write_bytes;
    p.ops[IOLENS_OP_OPEN].calls = e.open_calls;
    p.ops[IOLENS_OP_CLOSE].calls = e.close_calls;
    p.ops[IOLENS_OP_STAT].calls = e.stat_calls;
    p.ops[IOLENS_OP_SEEK].calls = e.seek_calls;
    p.ops[IOLENS_OP_SYNC].calls = e.sync_calls;
    return p;
}

// The report iolens should produce for the scenario, and the run's facts.
struct Fixture {
    model::Report report;
    RunFacts facts;

    Fixture()
    {
        for (const char* fam : {"process", "syscalls", "pagecache", "blocking", "block"})
            report.capture.probes.push_back({fam, "tp_btf/x", true, ""});
        report.capture.pids = {kDriver};
        model::ProcessStats driver;
        driver.info.pid = kDriver;
        report.processes.push_back(driver);
        uint32_t pid = 101;
        uint64_t warm_calls = 0, warm_bytes = 0;
        for (const auto& w : warm_workers()) {
            auto p = worker(pid, expected_warm(w));
            for (const auto& r : w.reads)
                p.ops[IOLENS_OP_READ].size_bytes.add(r.size, r.count);
            warm_calls += expected_warm(w).read_calls;
            warm_bytes += expected_warm(w).read_bytes;
            report.processes.push_back(p);
            facts.worker_pid[w.role] = pid++;
        }
        auto c = worker(pid, expected_cold());
        c.block.read_bytes = kColdFileSize;
        report.processes.push_back(c);
        facts.worker_pid['C'] = pid;

        model::FileStats warm, cold;
        warm.ino = 11;
        warm.dev = 5;
        warm.ops[IOLENS_OP_READ].calls = warm_calls;
        warm.ops[IOLENS_OP_READ].bytes = warm_bytes;
        warm.page_cache.hit_bytes = warm_bytes;
        cold.ino = 12;
        cold.dev = 5;
        cold.ops[IOLENS_OP_READ].bytes = kColdFileSize;
        cold.page_cache.miss_bytes = kColdFileSize;
        report.files = {warm, cold};

        facts.driver_pid = kDriver;
        facts.prepared.warm = {11, 5};
        facts.prepared.cold = {12, 5};
        facts.prepared.storage.fs_type = "ext4";
        facts.prepared.storage.block_device = true;
        facts.warm_before = {1024, 1024};
        facts.cold_before = {0, 512};
    }
};

const Check* find(const std::vector<Check>& checks, const std::string& name)
{
    auto it = std::find_if(checks.begin(), checks.end(), [&](const Check& c) { return c.name == name; });
    return it == checks.end() ? nullptr : &*it;
}

size_t count(const std::vector<Check>& checks, Verdict v)
{
    return static_cast<size_t>(std::count_if(checks.begin(), checks.end(), [&](const Check& c) { return c.verdict == v; }));
}

TEST(SelfTestChecks, MatchingReportPassesEveryCheck)
{
    Fixture f;
    auto checks = evaluate(f.report, f.facts);
    for (const auto& c : checks)
        EXPECT_EQ(c.verdict, Verdict::Pass) << c.name << ": expected " << c.expected << " got " << c.got;
    // Three workers x nine syscall classes, at the least.
    EXPECT_GT(checks.size(), 27u);
    ASSERT_NE(find(checks, "C block read bytes"), nullptr);
    EXPECT_EQ(find(checks, "C block read bytes")->expected, std::to_string(kColdFileSize));
}

TEST(SelfTestChecks, OneWrongCountFailsThatCheckOnly)
{
    Fixture f;
    f.report.processes[1].ops[IOLENS_OP_WRITE].calls += 10;  // A's pipe writes counted as file writes
    auto checks = evaluate(f.report, f.facts);
    EXPECT_EQ(count(checks, Verdict::Fail), 1u);
    const Check* c = find(checks, "A write calls (10 pipe writes excluded)");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->verdict, Verdict::Fail);
    EXPECT_EQ(c->expected, "3");
    EXPECT_EQ(c->got, "13");
}

TEST(SelfTestChecks, ReadSizesAreJudgedPerLog2Bucket)
{
    Fixture f;
    f.report.processes[2].ops[IOLENS_OP_READ].size_bytes.add(300);
    auto checks = evaluate(f.report, f.facts);
    const Check* c = find(checks, "B read sizes (log2 bucket:count)");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->verdict, Verdict::Fail);
    EXPECT_EQ(c->expected, "4096:7 8192:3 65536:3 1048576:1");
    EXPECT_EQ(c->got, "256:1 4096:7 8192:3 65536:3 1048576:1");
}

TEST(SelfTestChecks, MissingFamilyIsUnavailableWithItsReasonNeverZero)
{
    Fixture f;
    f.report.capture.probes[2] = {"pagecache", "", false, "no task storage for tracing programs (kernel < 5.11)"};
    f.report.files[1].page_cache = {};  // what a kernel without the probe leaves: zeros
    auto checks = evaluate(f.report, f.facts);
    const Check* c = find(checks, "cold.bin page-cache miss bytes");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->verdict, Verdict::Unavailable);
    EXPECT_NE(c->reason.find("no task storage"), std::string::npos) << c->reason;
    EXPECT_EQ(count(checks, Verdict::Fail), 0u);
}

TEST(SelfTestChecks, MemoryFileSystemMakesColdChecksUnavailable)
{
    Fixture f;
    f.facts.prepared.storage = {"tmpfs", true, false, "", "/tmp is on tmpfs (memory, no block device)"};
    f.facts.cold_before = {512, 512};
    auto checks = evaluate(f.report, f.facts);
    for (const char* name : {"cold.bin page-cache miss bytes", "C block read bytes"}) {
        const Check* c = find(checks, name);
        ASSERT_NE(c, nullptr) << name;
        EXPECT_EQ(c->verdict, Verdict::Unavailable) << name;
        EXPECT_NE(c->reason.find("tmpfs"), std::string::npos) << c->reason;
    }
}

TEST(SelfTestChecks, NoBlockDeviceMakesOnlyTheBlockCheckUnavailable)
{
    Fixture f;
    f.facts.prepared.storage.block_device = false;
    f.facts.prepared.storage.no_block_reason = "/x is on overlay with no block device of its own (dev 0:52)";
    auto checks = evaluate(f.report, f.facts);
    EXPECT_EQ(find(checks, "C block read bytes")->verdict, Verdict::Unavailable);
    EXPECT_EQ(find(checks, "cold.bin page-cache miss bytes")->verdict, Verdict::Pass);
}

TEST(SelfTestChecks, AMissingWorkerFails)
{
    Fixture f;
    f.facts.worker_pid.erase('B');
    auto checks = evaluate(f.report, f.facts);
    const Check* c = find(checks, "B read calls");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->verdict, Verdict::Fail);
    EXPECT_EQ(c->got, "missing");
}

TEST(SelfTestScenario, ExpectedCountsFollowThePlan)
{
    const auto& a = warm_workers().at(0);
    auto e = expected_warm(a);
    EXPECT_EQ(e.read_calls, 16u + 4 + 2 + 5);
    EXPECT_EQ(e.read_bytes, 16u * 4096 + 4 * 65536 + 2 * 1048576 + 5 * 1000);
    EXPECT_EQ(e.write_bytes, 3u * 8192);
    auto c = expected_cold();
    EXPECT_EQ(c.read_calls, kColdFileSize / kColdChunk + 1);
    EXPECT_EQ(c.read_bytes, kColdFileSize);
}

}  // namespace
}  // namespace iolens::selftest
