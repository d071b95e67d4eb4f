// The self-test's verdict logic on synthetic reports: a report that matches
// the scenario passes every check, one wrong count fails exactly that check,
// and figures a kernel or a file system cannot give are UNAVAILABLE with the
// reason, never PASS and never FAIL.
#include <gtest/gtest.h>

#include <algorithm>
#include <string_view>

#include "selftest/checks.h"
#include "selftest/scenario.h"

namespace iolens::selftest {
namespace {

constexpr uint32_t kDriver = 100;

model::ProcessStats worker(uint32_t pid, const Expected& e) {
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

    Fixture() {
        for (const char* fam : {"process", "syscalls", "pagecache", "blocking", "block", "io_uring"})
            report.capture.probes.push_back({fam, "tp_btf/x", true, ""});
        report.capture.pids = {kDriver};
        model::ProcessStats driver;
        driver.info.pid = kDriver;
        report.processes.push_back(driver);
        uint32_t pid = 101;
        uint64_t warm_calls = 0, warm_bytes = 0;
        for (const auto& w : workers()) {
            const Expected e = expected(w);
            auto p = worker(pid, e);
            p.ops[IOLENS_OP_READ].size_bytes = expected_read_sizes(w);
            if (std::string_view(w.file) == kColdFile) {
                p.block.read_bytes = e.read_bytes;
            } else if (std::string_view(w.file) == kWarmFile) {
                warm_calls += e.read_calls;
                warm_bytes += e.read_bytes;
            }
            report.processes.push_back(p);
            facts.worker_pid[w.role] = pid++;
        }

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

const Check* find(const std::vector<Check>& checks, const std::string& name) {
    auto it = std::find_if(checks.begin(), checks.end(), [&](const Check& c) { return c.name == name; });
    return it == checks.end() ? nullptr : &*it;
}

size_t count(const std::vector<Check>& checks, Verdict v) {
    return static_cast<size_t>(
        std::count_if(checks.begin(), checks.end(), [&](const Check& c) { return c.verdict == v; }));
}

TEST(SelfTestChecks, MatchingReportPassesEveryCheck) {
    Fixture f;
    auto checks = evaluate(f.report, f.facts);
    for (const auto& c : checks)
        EXPECT_EQ(c.verdict, Verdict::Pass) << c.name << ": expected " << c.expected << " got " << c.got;
    // One check per figure of the scenario: four workers x nine syscall
    // classes, three read-size histograms, the files, the page cache, the
    // block layer and the run itself.
    EXPECT_EQ(checks.size(), figures().size());
    EXPECT_EQ(checks.size(), 54u);
    ASSERT_NE(find(checks, "C block read bytes"), nullptr);
    EXPECT_EQ(find(checks, "C block read bytes")->expected, std::to_string(kColdFileSize));
}

TEST(SelfTestChecks, OneWrongCountFailsThatCheckOnly) {
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

TEST(SelfTestChecks, ReadSizesAreJudgedPerLog2Bucket) {
    Fixture f;
    f.report.processes[2].ops[IOLENS_OP_READ].size_bytes.add(300);
    auto checks = evaluate(f.report, f.facts);
    const Check* c = find(checks, "B read sizes (log2 bucket:count)");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->verdict, Verdict::Fail);
    EXPECT_EQ(c->expected, "4096:7 8192:3 65536:3 1048576:1");
    EXPECT_EQ(c->got, "256:1 4096:7 8192:3 65536:3 1048576:1");
}

TEST(SelfTestChecks, MissingFamilyIsUnavailableWithItsReasonNeverZero) {
    Fixture f;
    f.report.capture.probes[2] = {"pagecache", "", false,
                                  "no task storage for tracing programs (kernel < 5.11)"};
    f.report.files[1].page_cache = {};  // what a kernel without the probe leaves: zeros
    auto checks = evaluate(f.report, f.facts);
    const Check* c = find(checks, "cold.bin page-cache miss bytes");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->verdict, Verdict::Unavailable);
    EXPECT_NE(c->reason.find("no task storage"), std::string::npos) << c->reason;
    EXPECT_EQ(count(checks, Verdict::Fail), 0u);
}

// Worker D's ring requests are the io_uring family's figures: a kernel that
// cannot run the family (5.10) shows them UNAVAILABLE with its reason, and
// D's syscalls are still judged. A process that cannot make a ring at all
// (io_uring_disabled) leaves every figure of D unjudged, with the reason.
TEST(SelfTestChecks, IoUringWorkerFollowsItsFamilyAndTheRing) {
    Fixture f;
    auto checks = evaluate(f.report, f.facts);
    ASSERT_NE(find(checks, "D read calls (io_uring requests)"), nullptr);
    EXPECT_EQ(find(checks, "D read calls (io_uring requests)")->expected, "12");
    EXPECT_EQ(find(checks, "D write bytes (io_uring requests)")->expected, std::to_string(4 * 65536));
    EXPECT_EQ(find(checks, "D close calls")->expected, "4");  // its file, the ring, two pipe ends

    const std::string why =
        "no program fits this kernel's prototype of io_uring_submit_sqe (7 arguments), io_uring_complete (4 "
        "arguments)";
    f.report.capture.probes.back() = {"io_uring", "", false, why};
    auto& d = f.report.processes.back();
    d.ops[IOLENS_OP_READ] = {};
    d.ops[IOLENS_OP_WRITE] = {};
    checks = evaluate(f.report, f.facts);
    EXPECT_EQ(count(checks, Verdict::Fail), 0u);
    for (const char* name :
         {"D read calls (io_uring requests)", "D read bytes (io_uring requests)",
          "D write calls (io_uring requests) (2 pipe writes excluded)", "D read sizes (log2 bucket:count)"}) {
        const Check* c = find(checks, name);
        ASSERT_NE(c, nullptr) << name;
        EXPECT_EQ(c->verdict, Verdict::Unavailable) << name;
        EXPECT_NE(c->reason.find(why), std::string::npos) << c->reason;
    }
    EXPECT_EQ(find(checks, "D open calls")->verdict, Verdict::Pass);

    f.facts.io_uring_unusable = "io_uring_setup failed: Operation not permitted";
    checks = evaluate(f.report, f.facts);
    EXPECT_EQ(find(checks, "D open calls")->verdict, Verdict::Unavailable);
    EXPECT_EQ(find(checks, "D open calls")->reason, f.facts.io_uring_unusable);
    EXPECT_EQ(count(checks, Verdict::Fail), 0u);
}

TEST(SelfTestChecks, MemoryFileSystemMakesColdChecksUnavailable) {
    Fixture f;
    f.facts.prepared.storage = {"tmpfs", true, false, "", "/tmp is on tmpfs (memory, no block device)"};
    f.facts.cold_before = {512, 512};
    auto checks = evaluate(f.report, f.facts);
    for (const char* name :
         {"cold.bin page-cache miss bytes", "cold.bin page-cache hit bytes", "C block read bytes"}) {
        const Check* c = find(checks, name);
        ASSERT_NE(c, nullptr) << name;
        EXPECT_EQ(c->verdict, Verdict::Unavailable) << name;
        EXPECT_NE(c->reason.find("tmpfs"), std::string::npos) << c->reason;
    }
    // The same figures as on a disk: one that cannot be judged is listed as
    // UNAVAILABLE, never left out.
    EXPECT_EQ(checks.size(), figures().size());
}

TEST(SelfTestChecks, NoBlockDeviceMakesOnlyTheBlockCheckUnavailable) {
    Fixture f;
    f.facts.prepared.storage.block_device = false;
    f.facts.prepared.storage.no_block_reason = "/x is on overlay with no block device of its own (dev 0:52)";
    auto checks = evaluate(f.report, f.facts);
    EXPECT_EQ(find(checks, "C block read bytes")->verdict, Verdict::Unavailable);
    EXPECT_EQ(find(checks, "cold.bin page-cache miss bytes")->verdict, Verdict::Pass);
}

TEST(SelfTestChecks, AMissingWorkerFails) {
    Fixture f;
    f.facts.worker_pid.erase('B');
    auto checks = evaluate(f.report, f.facts);
    const Check* c = find(checks, "B read calls");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->verdict, Verdict::Fail);
    EXPECT_EQ(c->got, "missing");
}

TEST(SelfTestChecks, APlannedFamilyThatFailsToLoadFailsNotUnavailable) {
    // What Debian 12's 6.1 verifier did to the page-cache programs once: the
    // plan said ready, the load was refused, and every page-cache figure
    // came out UNAVAILABLE with the self-test passing.
    std::map<std::string, bool> planned{{"syscalls", true}, {"pagecache", true}, {"io_uring", false}};
    std::vector<recording::ProbeStatus> probes{
        {"syscalls", "tp_btf/sys_enter", true, ""},
        {"pagecache", "", false, "cannot load the pagecache BPF programs (Permission denied)"},
        {"io_uring", "", false, "tracepoint(s) not in this kernel: io_uring_submit_req"}};
    auto checks = load_checks(planned, probes);
    ASSERT_EQ(checks.size(), 2u);  // io_uring is not planned here: its figures say why
    EXPECT_EQ(checks[0].verdict, Verdict::Pass);
    EXPECT_EQ(checks[1].name, "pagecache probe loads and attaches");
    EXPECT_EQ(checks[1].verdict, Verdict::Fail);
    EXPECT_NE(checks[1].reason.find("Permission denied"), std::string::npos) << checks[1].reason;
}

TEST(SelfTestScenario, ExpectedCountsFollowThePlan) {
    const auto& a = workers().at(0);
    auto e = expected(a);
    EXPECT_EQ(e.read_calls, 16u + 4 + 2 + 5);
    EXPECT_EQ(e.read_bytes, 16u * 4096 + 4 * 65536 + 2 * 1048576 + 5 * 1000);
    EXPECT_EQ(e.write_bytes, 3u * 8192);
    EXPECT_EQ(e.open_calls, 2u);
    EXPECT_EQ(e.close_calls, 4u);
    auto c = expected(workers().at(2));
    EXPECT_EQ(c.read_calls, kColdFileSize / kColdChunk + 1);
    EXPECT_EQ(c.read_bytes, kColdFileSize);
    EXPECT_EQ(c.open_calls, 1u);
    EXPECT_EQ(c.close_calls, 3u);
    EXPECT_EQ(c.stat_calls + c.seek_calls + c.sync_calls + c.write_calls, 0u);
    EXPECT_EQ(bucket_text(expected_read_sizes(workers().at(2))), "0:1 65536:32");
}

TEST(SelfTestScenario, EveryReadFitsItsFile) {
    for (const auto& w : workers()) {
        const bool cold = std::string_view(w.file) == kColdFile;
        const uint64_t file_size = cold ? kColdFileSize : kWarmFileSize;
        uint64_t position = 0;
        for (const auto& r : w.reads) {
            ASSERT_LE(r.size, 1u << 20) << w.role << ": larger than the workers' buffer";
            if (r.positional)
                EXPECT_LE(7 + (r.count - 1) * 3 * r.size + r.size, file_size) << w.role;
            else
                position += r.size * r.count;
        }
        EXPECT_LE(position, file_size) << w.role;
        // A read to EOF returns 0 only after the whole file.
        if (w.read_to_eof) EXPECT_EQ(position, file_size) << w.role;
        // The cold file's misses are its reads: each cold reader reads it whole.
        if (cold) EXPECT_TRUE(w.read_to_eof) << w.role;
    }
}

}  // namespace
}  // namespace iolens::selftest
