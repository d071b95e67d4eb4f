// End-to-end: iolens records the workload generator, whose I/O is known
// exactly, and the JSON report must match it to the call and the byte.
#include <gtest/gtest.h>

#include <fstream>

#include "support.h"

namespace iolens::test {
namespace {

// Someone keeps the kernel's BPF statistics on (the sysctl): then they time
// every run, and the programs' own timing is not used.
bool kernel_bpf_stats_on() {
    std::ifstream in("/proc/sys/kernel/bpf_stats_enabled");
    int v = 0;
    return in >> v && v != 0;
}

class RecordExact : public ::testing::Test {
protected:
    void SetUp() override {
        if (!is_root()) GTEST_SKIP() << "needs root (CAP_BPF, CAP_PERFMON) to load BPF programs";
    }
    // Records argv with iolens; returns the JSON report.
    nlohmann::json record(const std::vector<std::string>& argv, int expect_status = 0) {
        std::vector<std::string> cmd = {iolens_bin(),        "record", "-o", dir / "rec.iolens", "--json",
                                        dir / "report.json", "--"};
        cmd.insert(cmd.end(), argv.begin(), argv.end());
        last = run(cmd);
        EXPECT_EQ(last.exit_status, expect_status) << last.err;
        return load_json(dir / "report.json");
    }
    // A file's entry in the report, by path.
    static nlohmann::json file_entry(const nlohmann::json& report, const std::string& path) {
        for (const auto& f : report["files"])
            if (f["path"] == path) return f;
        ADD_FAILURE() << "no file " << path << " in the report";
        return nlohmann::json::object();
    }
    // A probe family's program runs in a report's capture.cost.
    static uint64_t family_runs(const nlohmann::json& cost, const std::string& family) {
        for (const auto& fam : cost["bpf"])
            if (fam["family"] == family) return fam["runs"].get<uint64_t>();
        return 0;
    }
    // ... and their time.
    static uint64_t family_run_ns(const nlohmann::json& cost, const std::string& family) {
        for (const auto& fam : cost["bpf"])
            if (fam["family"] == family) return fam["run_ns"].get<uint64_t>();
        return 0;
    }
    TempDir dir;
    RunResult last;
};

TEST_F(RecordExact, PreadLoopCountsEveryCallAtFullRate) {
    // The highest syscall rate this machine reaches: 4 KiB cached preads.
    const std::string file = dir / "data.bin";
    ASSERT_EQ(run({workload_bin(), "pread-loop", "--file", file, "--count", "1"}).exit_status, 0);
    const uint64_t n = 2'000'000;
    auto j = record({workload_bin(), "pread-loop", "--file", file, "--count", std::to_string(n)});

    EXPECT_EQ(j["capture"]["lost_events"], 0);
    const auto& read = j["totals"]["read"];
    EXPECT_EQ(read["calls"], n);
    EXPECT_EQ(read["errors"], 0);
    EXPECT_EQ(read["bytes"], n * 4096);
    EXPECT_EQ(read["requested_bytes"], n * 4096);
    ASSERT_EQ(read["size_bytes"]["buckets"].size(), 1u);
    EXPECT_EQ(read["size_bytes"]["buckets"][0]["lo"], 4096);
    EXPECT_EQ(read["size_bytes"]["buckets"][0]["hi"], 8192);
    EXPECT_EQ(read["size_bytes"]["buckets"][0]["count"], n);
    // A static binary: the only other file syscalls are its own open and close.
    EXPECT_EQ(j["totals"]["open"]["calls"], 1);
    EXPECT_EQ(j["totals"]["close"]["calls"], 1);
    EXPECT_EQ(j["totals"]["write"]["calls"], 0);

    auto f = file_entry(j, file);
    EXPECT_EQ(f["ops"]["read"]["calls"], n);
    EXPECT_EQ(f["size"], 4096);
    // Every pread is at offset 0: each starts a new pass over the file
    // (a rewind to 0 is a new stream, not a random access).
    EXPECT_EQ(f["sequential"], n);
    EXPECT_EQ(f["random"], 0);

    // What tracing cost, by default from the programs' own timing of one run
    // in 64 (every run counted): an estimate, whose share of the runs timed
    // is reported.
    const auto& cost = j["capture"]["cost"];
    ASSERT_TRUE(cost.is_object()) << j["capture"];
    EXPECT_EQ(cost["bpf_stats_unavailable"], "");
    if (!kernel_bpf_stats_on()) {
        EXPECT_EQ(cost["bpf_timed_every"], 64);
        // ~1/64 of the runs: entries and exits alike (a hash of the count,
        // not a stride that would time only one of them).
        EXPECT_GT(cost["bpf_sampled_share"].get<double>(), 1.0 / 80);
        EXPECT_LT(cost["bpf_sampled_share"].get<double>(), 1.0 / 52);
    }
    EXPECT_GE(family_runs(cost, "syscalls"), 2 * n);
    EXPECT_GT(cost["bpf_run_ns"].get<uint64_t>(), 0u);
    EXPECT_GT(cost["recorder_cpu_ns"].get<uint64_t>(), 0u);
    EXPECT_GT(cost["recorder_max_rss_bytes"].get<uint64_t>(), 0u);
    EXPECT_GT(cost["attach_ns"].get<uint64_t>(), 0u);
    // 2M preads take far more than a millisecond of the job's CPU.
    EXPECT_GT(cost["job_cpu_ns"].get<uint64_t>(), 1'000'000u);
}

TEST_F(RecordExact, BpfStatisticsAlwaysOnCountEveryProgramRun) {
    // With the statistics on throughout, the syscall programs' run count is
    // exact: at least entry and exit of every pread (and every other syscall
    // on the machine meanwhile).
    const std::string file = dir / "data.bin";
    ASSERT_EQ(run({workload_bin(), "pread-loop", "--file", file, "--count", "1"}).exit_status, 0);
    const uint64_t n = 200'000;
    std::vector<std::string> cmd = {iolens_bin(), "record",           "--bpf-stats",    "always",
                                    "-o",         dir / "rec.iolens", "--json",         dir / "report.json",
                                    "--",         workload_bin(),     "pread-loop",     "--file",
                                    file,         "--count",          std::to_string(n)};
    auto r = run(cmd);
    ASSERT_EQ(r.exit_status, 0) << r.err;
    auto j = load_json(dir / "report.json");
    const auto& cost = j["capture"]["cost"];
    // A kernel without the statistics (before 5.8): the programs' own timing.
    if (cost.contains("bpf_timed_every")) GTEST_SKIP() << "no kernel BPF statistics here";
    EXPECT_EQ(cost["bpf_sampled_share"].get<double>(), 1.0);
    const uint64_t syscall_runs = family_runs(cost, "syscalls");
    EXPECT_GE(syscall_runs, 2 * n);
    EXPECT_EQ(j["totals"]["read"]["calls"], n);
}

TEST_F(RecordExact, AnIdleStartDoesNotDecideTheBpfCost) {
    // A job that idles first, then reads. Its programs' runs are counted
    // whole and one in 64 of them timed by the programs, over the whole
    // capture: the estimate is near what the kernel's statistics on
    // throughout measure for the same job. (With the kernel's statistics in
    // windows scaled by their share of the time, a job that slept through
    // the first window was estimated ~9x low.)
    const std::string file = dir / "data.bin";
    ASSERT_EQ(run({workload_bin(), "pread-loop", "--file", file, "--count", "1"}).exit_status, 0);
    const uint64_t n = 300'000;
    const std::string job = std::string("sleep 0.4; exec ") + workload_bin() + " pread-loop --file " + file +
                            " --count " + std::to_string(n);
    auto j = record({"/bin/sh", "-c", job});
    const auto& cost = j["capture"]["cost"];
    ASSERT_EQ(cost["bpf_stats_unavailable"], "");
    EXPECT_GE(family_runs(cost, "syscalls"), 2 * n);
    const double sampled = static_cast<double>(family_run_ns(cost, "syscalls"));

    std::vector<std::string> always = {iolens_bin(), "record",           "--bpf-stats", "always",
                                       "-o",         dir / "all.iolens", "--json",      dir / "all.json",
                                       "--",         "/bin/sh",          "-c",          job};
    auto r = run(always);
    ASSERT_EQ(r.exit_status, 0) << r.err;
    const auto all = load_json(dir / "all.json")["capture"]["cost"];
    // A kernel without the statistics (before 5.8): nothing to compare with.
    if (all.contains("bpf_timed_every")) GTEST_SKIP() << "no kernel BPF statistics here";
    const double exact = static_cast<double>(family_run_ns(all, "syscalls"));
    ASSERT_GT(exact, 0.0);
    // Two runs of a job on a shared machine: within 3x either way.
    EXPECT_GT(sampled, exact / 3) << "sampled " << sampled << " ns, always on " << exact << " ns";
    EXPECT_LT(sampled, exact * 3) << "sampled " << sampled << " ns, always on " << exact << " ns";
}

TEST_F(RecordExact, TwoThreadsCountedExactly) {
    const std::string file = dir / "data.bin";
    ASSERT_EQ(run({workload_bin(), "pread-loop", "--file", file, "--count", "1"}).exit_status, 0);
    const uint64_t n = 500'000;
    auto j = record(
        {workload_bin(), "pread-loop", "--file", file, "--count", std::to_string(n), "--threads", "2"});
    EXPECT_EQ(j["capture"]["lost_events"], 0);
    EXPECT_EQ(j["totals"]["read"]["calls"], 2 * n);
    EXPECT_EQ(j["totals"]["read"]["bytes"], 2 * n * 4096);
    ASSERT_EQ(j["processes"].size(), 1u);
    EXPECT_EQ(j["processes"][0]["ops"]["read"]["calls"], 2 * n);
}

TEST_F(RecordExact, ThreadsReadingOneFileInTurnAreASequentialScan) {
    // Two threads read a 4 MiB file front to back, strictly in turn, without
    // sleeping: each thread's records arrive in runs (per-thread batches), yet
    // by start time every read begins where the previous one ended.
    const std::string file = dir / "turns.bin";
    const uint64_t size = 4 << 20, chunk = 4096;
    ASSERT_EQ(run({workload_bin(), "make-file", "--file", file, "--size", std::to_string(size)}).exit_status,
              0);
    auto j = record(
        {workload_bin(), "turn-read", "--file", file, "--threads", "2", "--chunk", std::to_string(chunk)});
    EXPECT_EQ(j["capture"]["lost_events"], 0);
    EXPECT_EQ(j["totals"]["read"]["calls"], size / chunk);
    const nlohmann::json* f = nullptr;
    for (const auto& x : j["files"])
        if (x["path"] == file) f = &x;
    ASSERT_NE(f, nullptr) << file << " not in the report";
    EXPECT_EQ((*f)["sequential"], size / chunk);
    EXPECT_EQ((*f)["random"], 0);
}

TEST_F(RecordExact, DataLoaderLikePipelineFollowsForkedWorkers) {
    const int files = 40, size = 100000, epochs = 2, workers = 3, read_size = 65536;
    const std::string data = dir / "ds";
    ASSERT_EQ(run({workload_bin(), "make-dataset", "--dir", data, "--files", std::to_string(files), "--size",
                   std::to_string(size)})
                  .exit_status,
              0);
    auto j =
        record({workload_bin(), "dl", "--dir", data, "--files", std::to_string(files), "--size",
                std::to_string(size), "--epochs", std::to_string(epochs), "--workers",
                std::to_string(workers), "--read-size", std::to_string(read_size), "--compute-us", "50"});
    EXPECT_EQ(j["capture"]["lost_events"], 0);
    // Each sample: ceil(size/R) reads with data and one at EOF, per epoch.
    const uint64_t reads_per_file = (size + read_size - 1) / read_size + 1;
    const auto& read = j["totals"]["read"];
    EXPECT_EQ(read["calls"], uint64_t(files) * epochs * reads_per_file);
    EXPECT_EQ(read["bytes"], uint64_t(files) * epochs * size);
    // Pipe traffic between workers and the main process does not count.
    EXPECT_EQ(j["totals"]["write"]["calls"], 0);
    // The main process plus `workers` forked workers per epoch.
    EXPECT_EQ(j["processes"].size(), size_t(1 + epochs * workers));
    uint64_t worker_reads = 0;
    for (const auto& p : j["processes"]) {
        if (p["pid"] == j["capture"]["pids"][0]) {
            EXPECT_EQ(p["ops"]["read"]["calls"], 0) << "the main process only reads pipes";
            continue;
        }
        EXPECT_EQ(p["ppid"], j["capture"]["pids"][0]);
        worker_reads += p["ops"]["read"]["calls"].get<uint64_t>();
    }
    EXPECT_EQ(worker_reads, uint64_t(files) * epochs * reads_per_file);
    // Every sample file appears with its absolute path and exact counts.
    ASSERT_EQ(files_with_syscalls(j), size_t(files));
    for (const auto& f : j["files"]) {
        if (f["ops"]["read"]["calls"] == 0) continue;  // the workload binary, when exec faulted it in
        EXPECT_EQ(f["path"].get<std::string>().rfind(data + "/sample_", 0), 0u) << f["path"];
        EXPECT_EQ(f["ops"]["read"]["calls"], uint64_t(epochs) * reads_per_file);
        EXPECT_EQ(f["ops"]["open"]["calls"], uint64_t(epochs));
        EXPECT_EQ(f["ops"]["close"]["calls"], uint64_t(epochs));
        EXPECT_EQ(f["size"], uint64_t(size));
        EXPECT_EQ(f["random"], 0);
    }
}

TEST_F(RecordExact, FsyncOfADirectoryIsASyncCall) {
    // coreutils' sync FILE... opens each and fsyncs it (fdatasync with -d):
    // a directory's fsync is how a create or rename is made durable (sqlite,
    // checkpoint writers), and it counts (strace 8 vs iolens 6 before).
    const std::string sub = dir / "sub", file = dir / "f.bin";
    ASSERT_EQ(run({"mkdir", sub}).exit_status, 0);
    ASSERT_EQ(run({workload_bin(), "make-file", "--file", file, "--size", "4096"}).exit_status, 0);
    auto j = record({"/bin/sync", sub, file, dir.path()});
    EXPECT_EQ(j["totals"]["sync"]["calls"], 3);
    EXPECT_EQ(j["totals"]["sync"]["errors"], 0);
    EXPECT_EQ(file_entry(j, sub)["ops"]["sync"]["calls"], 1);
    EXPECT_EQ(file_entry(j, file)["ops"]["sync"]["calls"], 1);
}

TEST_F(RecordExact, ExitStatusOfTheCommandIsPassedThrough) {
    record({workload_bin(), "exit-code", "--code", "7"}, 7);
    auto j = load_json(dir / "report.json");
    EXPECT_EQ(j["capture"]["exit_status"], 7);
}

TEST_F(RecordExact, RecordingRereadGivesTheSameReport) {
    const std::string file = dir / "data.bin";
    ASSERT_EQ(run({workload_bin(), "pread-loop", "--file", file, "--count", "1"}).exit_status, 0);
    auto live = record({workload_bin(), "pread-loop", "--file", file, "--count", "1000", "--threads", "2"});
    auto r = run({iolens_bin(), "report", dir / "rec.iolens", "--json", dir / "reread.json"});
    ASSERT_EQ(r.exit_status, 0) << r.err;
    auto reread = load_json(dir / "reread.json");
    EXPECT_EQ(live, reread);
}

}  // namespace
}  // namespace iolens::test
