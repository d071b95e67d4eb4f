// issue #12: a root tool that a traced job cannot turn against its user. Every
// file iolens writes (recording, --json) goes through util/output_file.h: no
// write through a symlink, no silent truncation, mode 0600, -f replaces only
// a regular file or a link (never /dev/null), and a failure before the
// command runs leaves an old recording as it was. Signals: SIGQUIT ends a
// capture like SIGTERM, a backgrounded iolens (SIGINT ignored by its shell)
// still stops on SIGINT, and a closed stdout neither kills the recorder nor
// costs the JSON report.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "support.h"

namespace iolens::test {
namespace {

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void spit(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

mode_t lmode(const std::string& path) {
    struct stat st {};
    return ::lstat(path.c_str(), &st) == 0 ? st.st_mode : 0;
}

class OutputSafety : public ::testing::Test {
protected:
    void SetUp() override {
        if (!is_root()) GTEST_SKIP() << "needs root (CAP_BPF, CAP_PERFMON) to load BPF programs";
        ASSERT_TRUE(no_iolens_programs_within(5000)) << "iolens BPF programs from an earlier run are loaded";
    }
    TempDir dir;
};

TEST_F(OutputSafety, JsonIsNeverWrittenThroughASymlinkNorTruncatedWithoutForce) {
    const std::string victim = dir / "victim", link = dir / "r.json";
    spit(victim, "precious");
    ::chmod(victim.c_str(), 0644);
    ASSERT_EQ(::symlink(victim.c_str(), link.c_str()), 0);
    // Without -f: refused before anything runs (the command never starts).
    auto r =
        run({iolens_bin(), "record", "-o", dir / "a.iolens", "--json", link, "--", "touch", dir / "ran"});
    EXPECT_EQ(r.exit_status, 2) << r.err;
    EXPECT_NE(r.err.find("exists; use -f"), std::string::npos) << r.err;
    EXPECT_NE(access((dir / "ran").c_str(), F_OK), 0) << "the command ran despite the bad output";
    EXPECT_NE(access((dir / "a.iolens").c_str(), F_OK), 0);
    EXPECT_EQ(slurp(victim), "precious");
    // With -f: the link itself is replaced by a private file; the target is untouched.
    r = run({iolens_bin(), "record", "-f", "-o", dir / "a.iolens", "--json", link, "--", "true"});
    EXPECT_EQ(r.exit_status, 0) << r.err;
    EXPECT_EQ(slurp(victim), "precious");
    EXPECT_TRUE(S_ISREG(lmode(link)));
    EXPECT_EQ(lmode(link) & 07777, 0600u);
    EXPECT_EQ(load_json(link)["capture"]["exit_status"], 0);
    EXPECT_EQ(lmode(victim) & 07777, 0644u);
}

TEST_F(OutputSafety, ForceNeverReplacesADeviceOrADirectory) {
    struct stat before {};
    ASSERT_EQ(::stat("/dev/null", &before), 0);
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"-f", "-o", "/dev/null"},
          std::vector<std::string>{"-f", "-o", dir / "x.iolens", "--json", "/dev/null"},
          std::vector<std::string>{"-f", "-o", dir.path()}}) {
        std::vector<std::string> argv = {iolens_bin(), "record"};
        argv.insert(argv.end(), args.begin(), args.end());
        argv.insert(argv.end(), {"--", "true"});
        auto r = run(argv);
        EXPECT_EQ(r.exit_status, 2) << args[2] << ": " << r.err;
        EXPECT_TRUE(r.err.find("character device") != std::string::npos ||
                    r.err.find("is a directory") != std::string::npos)
            << r.err;
        struct stat after {};
        ASSERT_EQ(::stat("/dev/null", &after), 0);
        EXPECT_TRUE(S_ISCHR(after.st_mode));
        EXPECT_EQ(after.st_rdev, before.st_rdev);
    }
}

TEST_F(OutputSafety, TheJsonReportIsNeverTheRecordingHoweverNamed) {
    auto r = run({iolens_bin(), "record", "-o", dir / "a.iolens", "--", "true"});
    ASSERT_EQ(r.exit_status, 0) << r.err;
    const std::string before = slurp(dir / "a.iolens");
    ASSERT_EQ(::link((dir / "a.iolens").c_str(), (dir / "hard").c_str()), 0);
    // report --json onto its own input: by another name, a hard link, a path with ./
    for (const std::string& json : {dir / "hard", dir.path() + "/./a.iolens"}) {
        auto rep = run({iolens_bin(), "report", "-f", dir / "a.iolens", "--json", json});
        EXPECT_EQ(rep.exit_status, 2) << json << ": " << rep.err;
        EXPECT_NE(rep.err.find("same file"), std::string::npos) << rep.err;
    }
    EXPECT_EQ(slurp(dir / "a.iolens"), before);
    // record: -o and --json one file by two spellings
    r = run({iolens_bin(), "record", "-f", "-o", dir / "b.iolens", "--json", dir.path() + "/./b.iolens", "--",
             "true"});
    EXPECT_EQ(r.exit_status, 2) << r.err;
    EXPECT_NE(r.err.find("same file"), std::string::npos) << r.err;
}

TEST_F(OutputSafety, AFailedStartLeavesTheOldRecordingAsItWas) {
    auto r = run({iolens_bin(), "record", "-o", dir / "a.iolens", "--", "true"});
    ASSERT_EQ(r.exit_status, 0) << r.err;
    const std::string before = slurp(dir / "a.iolens");
    // A typo in the command: 127, and the old recording is still there.
    r = run({iolens_bin(), "record", "-f", "-o", dir / "a.iolens", "--", "/nonexistent/typo"});
    EXPECT_EQ(r.exit_status, 127) << r.err;
    EXPECT_EQ(slurp(dir / "a.iolens"), before);
    // No temporary file is left behind either.
    auto ls = run({"sh", "-c", "ls -A " + dir.path()});
    EXPECT_EQ(ls.out, "a.iolens\n");
}

TEST_F(OutputSafety, AClosedStdoutCostsNeitherTheJsonNorTheJobsStatus) {
    // `iolens record --json j ... | head -1`: head exits after one line, and
    // the summary's later lines go to a closed pipe.
    auto w = run({"bash", "-c",
                  std::string(iolens_bin()) + " record -o " + (dir / "a.iolens") + " --json " +
                      (dir / "j.json") + " -- sh -c 'exit 7' | head -1 >/dev/null; echo ${PIPESTATUS[0]}"});
    EXPECT_EQ(w.out, "7\n") << w.err;
    EXPECT_EQ(load_json(dir / "j.json")["capture"]["exit_status"], 7);
}

TEST_F(OutputSafety, SigquitEndsACaptureLikeSigterm) {
    Background target({"sleep", "30"});
    Background rec({iolens_bin(), "record", "-p", std::to_string(target.pid()), "-o", dir / "q.iolens"});
    ASSERT_TRUE(rec.wait_for_line(true, "tracing live", 10000));
    kill(rec.pid(), SIGQUIT);
    auto r = rec.wait();
    EXPECT_EQ(r.exit_status, 0) << r.err;
    auto rep = run({iolens_bin(), "report", "--json", dir / "q.json", dir / "q.iolens"});
    EXPECT_EQ(rep.exit_status, 0) << rep.err;
    EXPECT_NE(load_json(dir / "q.json")["capture"]["stop_reason"].get<std::string>().find("stopped by"),
              std::string::npos);
}

TEST_F(OutputSafety, ABackgroundedRecorderStillStopsOnSigint) {
    // A non-interactive shell starts `iolens record ... &` with SIGINT ignored.
    Background target({"sleep", "30"});
    Background rec({"sh", "-c",
                    "trap '' INT; exec " + std::string(iolens_bin()) + " record -p " +
                        std::to_string(target.pid()) + " -o " + (dir / "bg.iolens")});
    ASSERT_TRUE(rec.wait_for_line(true, "tracing live", 10000));
    kill(rec.pid(), SIGINT);
    auto r = rec.wait();
    EXPECT_EQ(r.exit_status, 0) << r.err;
    EXPECT_NE(r.err.find("recording written"), std::string::npos) << r.err;
}

TEST_F(OutputSafety, TextThatIsNotUtf8NeverEndsACaptureAndIsStoredLosslessly) {
    // A command argument, a rank variable's value and (with -p) a target's
    // argv that are not UTF-8: the capture runs to its end, exits with the
    // job's status, and the bytes come back exactly.
    auto r = run({"env", std::string("LOCAL_RANK=\xff"), iolens_bin(), "record", "-o", dir / "a.iolens",
                  "--json", dir / "a.json", "--", "sh", "-c", "exit 3", std::string("arg\xfe")});
    EXPECT_EQ(r.exit_status, 3) << r.err;
    auto j = load_json(dir / "a.json");
    EXPECT_EQ(j["capture"]["exit_status"], 3);
    EXPECT_EQ(j["capture"]["command"][3]["bytes_hex"], "617267fe");
    EXPECT_EQ(j["capture"]["command"][3]["text"], "arg\\xfe");
    EXPECT_NE(r.out.find("arg\\xfe"), std::string::npos) << "the terminal shows the bad byte escaped\n"
                                                         << r.out;

    Background target({"sh", "-c", "sleep 30", std::string("t\xff")});
    Background rec({iolens_bin(), "record", "-p", std::to_string(target.pid()), "-o", dir / "p.iolens", "-d",
                    "1s", "--json", dir / "p.json"});
    auto rr = rec.wait();
    EXPECT_EQ(rr.exit_status, 0) << rr.err;
    auto pj = load_json(dir / "p.json");
    bool found = false;
    for (const auto& p : pj["processes"])
        for (const auto& a : p["cmdline"]) found = found || (a.is_object() && a["bytes_hex"] == "74ff");
    EXPECT_TRUE(found) << pj["processes"].dump();
}

TEST_F(OutputSafety, ADiskFullMidRunNeverAbandonsTheJobAndSaysWhatWasLost) {
    // A 256 KiB tmpfs for the recording: the first 1 MiB RECORDS chunk does
    // not fit, the END chunk does.
    const std::string small = dir / "small";
    ASSERT_EQ(::mkdir(small.c_str(), 0700), 0);
    ASSERT_EQ(run({"mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", small}).exit_status, 0);
    struct Unmount {
        std::string path;
        ~Unmount() { run({"umount", "-l", path}); }
    } unmount{small};
    const uint64_t n = 50000;
    auto r =
        run({iolens_bin(), "record", "-o", small + "/r.iolens", "--json", dir / "j.json", "--", "sh", "-c",
             std::string(workload_bin()) + " pread-loop --file " + (dir / "f") + " --count " +
                 std::to_string(n) + " && echo job-finished && exit 5"});
    EXPECT_EQ(r.exit_status, 5) << r.err;  // the job's own status
    EXPECT_NE(r.out.find("job-finished"), std::string::npos) << "the job did not run to its end";
    EXPECT_NE(r.err.find("the job keeps running"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("could not be written"), std::string::npos) << r.err;
    auto j = load_json(dir / "j.json");
    const auto lost = j["capture"]["lost_detail"].value("not_written", uint64_t{0});
    EXPECT_GT(lost, 0u);
    EXPECT_GE(j["totals"]["read"]["calls"].get<uint64_t>() + lost, n);
    EXPECT_EQ(j["capture"]["exit_status"], 5);
    // What was written reads back as a recording.
    auto rep = run({iolens_bin(), "report", small + "/r.iolens"});
    EXPECT_TRUE(rep.exit_status == 0 || rep.exit_status == 3) << rep.err;
}

}  // namespace
}  // namespace iolens::test
