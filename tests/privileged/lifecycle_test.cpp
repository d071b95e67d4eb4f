// Attach mode, signals, a killed recorder, bad input, and kernel resources
// released on every exit path.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "support.h"

namespace iolens::test {
namespace {

class Lifecycle : public ::testing::Test {
protected:
    void SetUp() override {
        if (!is_root()) GTEST_SKIP() << "needs root (CAP_BPF, CAP_PERFMON) to load BPF programs";
        // The kernel frees a dead recorder's programs asynchronously; start
        // from a clean slate.
        ASSERT_TRUE(no_iolens_programs_within(5000)) << "iolens BPF programs from an earlier run are loaded";
    }
    void TearDown() override {
        if (is_root() && !IsSkipped())
            EXPECT_TRUE(no_iolens_programs_within(5000)) << "an iolens BPF program is still loaded";
    }
    TempDir dir;
};

TEST_F(Lifecycle, AttachFollowsChildrenForkedAfterTheAttach) {
    const std::string file = dir / "data.bin";
    Background target({workload_bin(), "attach-target", "--file", file, "--children", "3", "--reads", "100"});
    ASSERT_TRUE(target.wait_for_line(false, "ready", 10000));
    Background rec({iolens_bin(), "record", "-p", std::to_string(target.pid()), "-o", dir / "rec.iolens",
                    "--json", dir / "r.json"});
    ASSERT_TRUE(rec.wait_for_line(true, "tracing live", 10000));
    kill(target.pid(), SIGUSR1);
    EXPECT_EQ(target.wait().exit_status, 0);
    auto r = rec.wait();  // ends by itself once every traced process exited
    ASSERT_EQ(r.exit_status, 0) << r.err;
    auto j = load_json(dir / "r.json");
    EXPECT_EQ(j["capture"]["pids"], nlohmann::json::array({target.pid()}));  // the pid named with -p
    EXPECT_EQ(j["capture"]["lost_events"], 0);
    EXPECT_EQ(j["totals"]["read"]["calls"], 300);
    EXPECT_EQ(j["totals"]["read"]["bytes"], 300 * 4096);
    EXPECT_EQ(j["totals"]["open"]["calls"], 3);
    ASSERT_EQ(j["processes"].size(), 4u);
    int children = 0;
    for (const auto& p : j["processes"]) {
        if (p["pid"] == target.pid()) continue;
        children++;
        EXPECT_EQ(p["ppid"], target.pid());
        EXPECT_EQ(p["ops"]["read"]["calls"], 100);
        EXPECT_EQ(p["exit_code"], 0);
    }
    EXPECT_EQ(children, 3);
}

TEST_F(Lifecycle, SigintEndsAnAttachWithACompleteRecording) {
    const std::string file = dir / "data.bin";
    Background target({workload_bin(), "attach-target", "--file", file, "--children", "1", "--reads", "1"});
    ASSERT_TRUE(target.wait_for_line(false, "ready", 10000));
    Background rec({iolens_bin(), "record", "-p", std::to_string(target.pid()), "-o", dir / "rec.iolens"});
    ASSERT_TRUE(rec.wait_for_line(true, "tracing live", 10000));
    kill(rec.pid(), SIGINT);
    auto r = rec.wait();
    EXPECT_EQ(r.exit_status, 0) << r.err;
    auto rep = run({iolens_bin(), "report", dir / "rec.iolens"});
    EXPECT_EQ(rep.exit_status, 0) << rep.err;
}

// Calls of a thread that is still alive when recording stops wait in the
// thread's batch (bpf/call_batch.bpf.h): stopping must still deliver every
// one of them, not leave them behind or count them as lost.
TEST_F(Lifecycle, StoppingAnAttachDeliversTheCallsOfAThreadStillAlive) {
    const std::string file = dir / "data.bin";
    Background target({workload_bin(), "attach-target", "--file", file, "--children", "0", "--reads", "0",
                       "--own-reads", "5"});
    ASSERT_TRUE(target.wait_for_line(false, "ready", 10000));
    Background rec({iolens_bin(), "record", "-p", std::to_string(target.pid()), "-o", dir / "rec.iolens",
                    "--json", dir / "r.json"});
    ASSERT_TRUE(rec.wait_for_line(true, "tracing live", 10000));
    kill(target.pid(), SIGUSR1);
    ASSERT_TRUE(target.wait_for_line(false, "done", 10000));  // 5 reads made; the process lives on
    kill(rec.pid(), SIGINT);
    auto r = rec.wait();
    ASSERT_EQ(r.exit_status, 0) << r.err;
    kill(target.pid(), SIGUSR1);
    EXPECT_EQ(target.wait().exit_status, 0);
    auto j = load_json(dir / "r.json");
    EXPECT_EQ(j["capture"]["lost_events"], 0);
    EXPECT_EQ(j["totals"]["read"]["calls"], 5);
    EXPECT_EQ(j["totals"]["read"]["bytes"], 5 * 4096);
    EXPECT_EQ(j["totals"]["open"]["calls"], 1);
    EXPECT_EQ(j["totals"]["close"]["calls"], 1);
}

// A recorder that cannot keep up loses records when the ring buffer is
// full: each lost record is counted once, as ring_buffer_full, never silently
// and never twice (a refused batch of syscall records is not also
// "undelivered"). The recorder is stopped with SIGSTOP while 3 x 250000 reads
// (~6 MiB of records: the same bytes again and again, 8 bytes a call in runs)
// go into a 1 MiB ring.
TEST_F(Lifecycle, RecordsLostToAFullRingBufferAreCountedOnce) {
    const std::string file = dir / "data.bin";
    const int reads = 3 * 250000;
    Background target(
        {workload_bin(), "attach-target", "--file", file, "--children", "3", "--reads", "250000"});
    ASSERT_TRUE(target.wait_for_line(false, "ready", 10000));
    Background rec({iolens_bin(), "record", "-p", std::to_string(target.pid()), "--ringbuf-mib", "1", "-o",
                    dir / "rec.iolens", "--json", dir / "r.json"});
    ASSERT_TRUE(rec.wait_for_line(true, "tracing live", 10000));
    kill(rec.pid(), SIGSTOP);
    kill(target.pid(), SIGUSR1);
    EXPECT_EQ(target.wait().exit_status, 0);
    kill(rec.pid(), SIGCONT);
    auto r = rec.wait();
    ASSERT_EQ(r.exit_status, 0) << r.err;
    auto j = load_json(dir / "r.json");
    const auto& lost = j["capture"]["lost_detail"];
    ASSERT_TRUE(lost.contains("ring_buffer_full")) << lost.dump();
    EXPECT_FALSE(lost.contains("undelivered")) << lost.dump();
    const int64_t full = lost["ring_buffer_full"].get<int64_t>();
    const int64_t counted = j["totals"]["read"]["calls"].get<int64_t>();
    EXPECT_GT(full, 0);
    EXPECT_LT(counted, reads);
    // Every read is either in the report or among the lost records; the
    // lost ones beyond the reads are the few opens, closes, files and exits.
    EXPECT_GE(counted + full, reads);
    EXPECT_LE(counted + full, reads + 40);
}

TEST_F(Lifecycle, DurationEndsAnAttach) {
    const std::string file = dir / "data.bin";
    Background target({workload_bin(), "attach-target", "--file", file, "--children", "1", "--reads", "1"});
    ASSERT_TRUE(target.wait_for_line(false, "ready", 10000));
    auto r = run({iolens_bin(), "record", "-p", std::to_string(target.pid()), "-d", "300ms", "-o",
                  dir / "rec.iolens", "--json", dir / "r.json"});
    EXPECT_EQ(r.exit_status, 0) << r.err;
    auto j = load_json(dir / "r.json");
    EXPECT_EQ(j["capture"]["partial"], false);
    EXPECT_GE(j["capture"]["duration_ns"].get<uint64_t>(), 300'000'000u);
}

TEST_F(Lifecycle, SigtermToTheRecorderIsPassedToTheCommand) {
    // attach-target waits for SIGUSR1 forever; SIGTERM's default action ends it.
    Background rec({iolens_bin(), "record", "-o", dir / "rec.iolens", "--json", dir / "r.json", "--",
                    workload_bin(), "attach-target", "--file", dir / "data.bin", "--children", "1", "--reads",
                    "1"});
    ASSERT_TRUE(rec.wait_for_line(true, "tracing live", 10000));
    ASSERT_TRUE(rec.wait_for_line(false, "ready", 10000));
    kill(rec.pid(), SIGTERM);
    auto r = rec.wait();
    EXPECT_EQ(r.exit_status, 128 + SIGTERM) << "the command's status, as a shell reports it\n" << r.err;
    auto j = load_json(dir / "r.json");
    EXPECT_EQ(j["capture"]["partial"], false);
    EXPECT_EQ(j["capture"]["exit_status"], 128 + SIGTERM);
    // What the command did before the signal was recorded: it created and
    // opened its file (docs/workload.md, attach-target).
    EXPECT_GE(j["totals"]["open"]["calls"].get<uint64_t>(), 1u);
}

TEST_F(Lifecycle, KilledRecorderLeavesAReadablePartialRecording) {
    const std::string file = dir / "data.bin";
    ASSERT_EQ(run({workload_bin(), "pread-loop", "--file", file, "--count", "1"}).exit_status, 0);
    Background rec({iolens_bin(), "record", "-o", dir / "rec.iolens", "--", workload_bin(), "pread-loop",
                    "--file", file, "--count", "100000000"});
    ASSERT_TRUE(rec.wait_for_line(true, "tracing live", 10000));
    usleep(1'500'000);  // past the recorder's 1 s flush
    const pid_t workload = child_of(rec.pid());
    kill(rec.pid(), SIGKILL);
    if (workload > 0) kill(workload, SIGKILL);  // it would run on, untraced, for minutes
    rec.wait();
    auto r = run({iolens_bin(), "report", dir / "rec.iolens", "--json", dir / "r.json"});
    EXPECT_EQ(r.exit_status, 3) << "partial reports exit 3\n" << r.err;
    EXPECT_NE(r.err.find("partial"), std::string::npos) << r.err;
    auto j = load_json(dir / "r.json");
    EXPECT_EQ(j["capture"]["partial"], true);
    EXPECT_GT(j["totals"]["read"]["calls"].get<uint64_t>(), 0u);
}

TEST_F(Lifecycle, AKilledRecorderLosesOnlyItsLastFewHundredMilliseconds) {
    // 5,000 reads, then the job idles (no exec, which would flush): a SIGKILL
    // 500 ms later (past the 100 ms flush and the 50 ms poll) must find all
    // of them in the file. Three rounds: a 1 s flush (as before) would lose
    // them in most rounds.
    const std::string file = dir / "data.bin";
    ASSERT_EQ(run({workload_bin(), "pread-loop", "--file", file, "--count", "1"}).exit_status, 0);
    for (int round = 0; round < 3; ++round) {
        const std::string rec_path = dir / ("rec" + std::to_string(round) + ".iolens");
        Background rec({iolens_bin(), "record", "-o", rec_path, "--", workload_bin(), "attach-target",
                        "--file", file, "--children", "0", "--reads", "0", "--own-reads", "5000"});
        ASSERT_TRUE(rec.wait_for_line(false, "ready", 20000));
        const pid_t job = child_of(rec.pid());
        ASSERT_GT(job, 0);
        kill(job, SIGUSR1);
        ASSERT_TRUE(rec.wait_for_line(false, "done", 20000));
        usleep(500'000);
        kill(rec.pid(), SIGKILL);
        kill(job, SIGKILL);
        rec.wait();
        auto r = run({iolens_bin(), "report", rec_path, "--json", rec_path + ".json"});
        EXPECT_EQ(r.exit_status, 3) << r.err;
        auto j = load_json(rec_path + ".json");
        uint64_t reads = 0;
        for (const auto& f : j["files"])
            if (f["path"] == file) reads = f["ops"]["read"]["calls"].get<uint64_t>();
        EXPECT_EQ(reads, 5000u) << "round " << round;
    }
}

TEST_F(Lifecycle, RecordingFileIsPrivateAndNeverOverwrittenWithoutForce) {
    const std::string out = dir / "rec.iolens";
    auto r = run({iolens_bin(), "record", "-o", out, "--", workload_bin(), "exit-code", "--code", "0"});
    ASSERT_EQ(r.exit_status, 0) << r.err;
    struct stat st {};
    ASSERT_EQ(stat(out.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);

    std::ofstream(dir / "keep.txt") << "precious";
    r = run(
        {iolens_bin(), "record", "-o", dir / "keep.txt", "--", workload_bin(), "exit-code", "--code", "0"});
    EXPECT_NE(r.exit_status, 0);
    EXPECT_NE(r.err.find("exists"), std::string::npos) << r.err;
    std::ifstream in(dir / "keep.txt");
    std::string content;
    in >> content;
    EXPECT_EQ(content, "precious");

    r = run({iolens_bin(), "record", "-f", "-o", dir / "keep.txt", "--", workload_bin(), "exit-code",
             "--code", "0"});
    EXPECT_EQ(r.exit_status, 0) << r.err;
}

TEST_F(Lifecycle, TheRecorderNeverTracesItself) {
    // The shell runs iolens as its child, so iolens is inside the tree it
    // was asked to trace; its own recording writes must not be counted. The
    // shell's only file I/O afterwards is none at all (it waits).
    const std::string script = std::string(iolens_bin()) + " record -p $$ -d 500ms -o " +
                               (dir / "rec.iolens") + " --json " + (dir / "r.json") +
                               " >/dev/null; exit $?";  // not the last command: sh must fork
    auto r = run({"/bin/sh", "-c", script});
    ASSERT_EQ(r.exit_status, 0) << r.err;
    auto j = load_json(dir / "r.json");
    EXPECT_EQ(j["totals"]["write"]["calls"], 0);
    EXPECT_EQ(j["totals"]["read"]["calls"], 0);
    for (const auto& p : j["processes"]) EXPECT_NE(p["comm"], "iolens");
}

TEST_F(Lifecycle, WithoutPrivilegesRecordSaysWhichAreNeeded) {
    auto r = run({"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", iolens_bin(), "record", "-o",
                  dir / "x", "--", "true"});
    EXPECT_EQ(r.exit_status, 1);
    EXPECT_NE(r.err.find("CAP_BPF and CAP_PERFMON"), std::string::npos) << r.err;
    auto c = run({"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", iolens_bin(), "check"});
    EXPECT_EQ(c.exit_status, 1);
    EXPECT_NE(c.out.find("run it as root"), std::string::npos) << c.out;
}

TEST_F(Lifecycle, BadInputGetsAClearErrorAndNonZeroExit) {
    struct Case {
        std::vector<std::string> args;
        int status;  // -1: any non-zero
        std::string message;
    };
    const std::vector<Case> cases = {
        {{"record", "-p", "abc"}, -1, "abc"},
        {{"record", "-p", "999999999"}, -1, "no process with pid 999999999"},
        {{"record", "-o", dir / "a", "--", "/nonexistent/command"}, 127, "command not found"},
        {{"record", "-o", dir / "b", "--", "/etc/passwd"}, 126, "cannot execute"},
        {{"record", "-p", "1", "--", "true"}, 2, "not both"},
        {{"record"}, 2, "nothing to trace"},
        {{"record", "-d", "soon", "--", "true"}, 2, "invalid duration"},
        {{"record", "-o", "/nonexistent-dir/x", "--", "true"}, -1, "/nonexistent-dir/x"},
        {{"report", dir / "missing"}, -1, "missing"},
        {{"report", "/etc/passwd"}, -1, "not an iolens recording"},
        {{"report", "/dev/null"}, -1, "/dev/null"},
        {{"report", "/tmp"}, -1, "/tmp"},
        {{"frobnicate"}, 2, "unknown command 'frobnicate'"},
        // issue #12: every usage error exits 2, with a message naming the value
        {{"report", dir / "missing", "--nope"}, 2, "--nope"},
        {{"record", "-p", "2"}, 2, "kernel thread"},
        {{"record", "--ringbuf-mib", "4096", "--", "true"}, 2, "1 to 1024"},
        {{"record", "-d", "", "--", "true"}, 2, "empty"},
        {{"record", "-d", "0x10s", "--", "true"}, 2, "invalid duration '0x10s'"},
        {{"record", "-p", "-5"}, 2, "not a whole number"},
        {{"report", dir / "missing", "--top", "-1"}, 2, "not a whole number"},
        {{"report", dir / "missing", "--max-files", "99999999999999999999"}, 2, "out of range"},
    };
    for (const auto& c : cases) {
        std::vector<std::string> argv = {iolens_bin()};
        argv.insert(argv.end(), c.args.begin(), c.args.end());
        auto r = run(argv);
        std::string what = c.args.empty() ? "" : c.args[0];
        for (size_t i = 1; i < c.args.size(); i++) what += " " + c.args[i];
        if (c.status >= 0)
            EXPECT_EQ(r.exit_status, c.status) << what << "\n" << r.err;
        else
            EXPECT_NE(r.exit_status, 0) << what;
        EXPECT_LT(r.exit_status, 128) << what << " crashed:\n" << r.err;
        EXPECT_NE(r.err.find(c.message), std::string::npos) << what << "\nstderr: " << r.err;
    }
    // Garbage after the magic is damage, not a newer format.
    std::ofstream(dir / "garbage") << "IOLENSRC" << std::string(64, 'g');
    auto g = run({iolens_bin(), "report", dir / "garbage"});
    EXPECT_EQ(g.exit_status, 1);
    EXPECT_NE(g.err.find("header is damaged"), std::string::npos) << g.err;
    EXPECT_EQ(g.err.find("upgrade"), std::string::npos) << g.err;
    // A target that exits while the probes load: said plainly, never a wrapped count.
    Background brief({"sleep", "0.05"});
    auto b = run({iolens_bin(), "record", "-p", std::to_string(brief.pid()), "-o", dir / "brief.iolens"});
    EXPECT_EQ(b.err.find("18446744073709551615"), std::string::npos) << b.err;
    // A record that never went live leaves no recording behind.
    EXPECT_NE(access((dir / "a").c_str(), F_OK), 0) << "command not found left a recording";
    EXPECT_NE(access((dir / "b").c_str(), F_OK), 0) << "cannot execute left a recording";
}

}  // namespace
}  // namespace iolens::test
