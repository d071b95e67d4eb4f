// End-to-end: files a process had open before tracing began (a shell's
// redirections, the files of a -p target) are reported by their path, read
// from /proc when the process is launched or adopted, not as <dev M:m ino N>.
#include <gtest/gtest.h>

#include <signal.h>

#include "support.h"

namespace iolens::test {
namespace {

class OpenBefore : public ::testing::Test {
protected:
    void SetUp() override {
        if (!is_root()) GTEST_SKIP() << "needs root (CAP_BPF, CAP_PERFMON) to load BPF programs";
    }
    static const nlohmann::json* file_entry(const nlohmann::json& report, const std::string& path) {
        for (const auto& f : report["files"])
            if (f["path"] == path) return &f;
        return nullptr;
    }
    TempDir dir;
};

TEST_F(OpenBefore, ShellRedirectionsOfALaunchedCommandHaveTheirPaths) {
    // The outer shell opens both files before iolens starts; the traced
    // command inherits them as stdin and stdout.
    const std::string in = dir / "in.bin", out = dir / "out.bin";
    ASSERT_EQ(run({workload_bin(), "make-file", "--file", in, "--size", "65536"}).exit_status, 0);
    const std::string cmd = std::string(iolens_bin()) + " record -o " + (dir / "rec.iolens") + " --json " +
                            (dir / "r.json") + " -- /usr/bin/cat < " + in + " > " + out;
    auto r = run({"/bin/sh", "-c", cmd});
    ASSERT_EQ(r.exit_status, 0) << r.err;
    auto j = load_json(dir / "r.json");
    const auto* fin = file_entry(j, in);
    const auto* fout = file_entry(j, out);
    ASSERT_NE(fin, nullptr) << j["files"];
    ASSERT_NE(fout, nullptr) << j["files"];
    // However cat moves the bytes (read/write or a copy call), each file has them.
    EXPECT_EQ((*fin)["ops"]["read"]["bytes"], 65536);
    EXPECT_EQ((*fout)["ops"]["write"]["bytes"], 65536);
    // Every file a call touched is named (a file seen only through page
    // faults, such as a binary the kernel maps at exec, may still not be).
    for (const auto& f : j["files"]) {
        uint64_t calls = 0;
        for (const auto& [op, s] : f["ops"].items()) calls += s["calls"].get<uint64_t>();
        if (calls) EXPECT_NE(f["path"].get<std::string>().rfind("<dev", 0), 0u) << f["path"];
    }
}

TEST_F(OpenBefore, FilesOfAnAdoptedProcessHaveTheirPaths) {
    const std::string file = dir / "held.bin";
    ASSERT_EQ(run({workload_bin(), "make-file", "--file", file, "--size", "8192"}).exit_status, 0);
    // Opens the file, then waits for SIGUSR1 before reading it.
    Background target({"/usr/bin/python3", "-c",
                       "import os, signal, sys\n"
                       "signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGUSR1])\n"
                       "fd = os.open(sys.argv[1], os.O_RDONLY)\n"
                       "print('ready', flush=True)\n"
                       "signal.sigwait([signal.SIGUSR1])\n"
                       "os.pread(fd, 4096, 4096)\n",
                       file});
    ASSERT_TRUE(target.wait_for_line(false, "ready", 10000));
    Background rec({iolens_bin(), "record", "-p", std::to_string(target.pid()), "-o", dir / "rec.iolens",
                    "--json", dir / "r.json"});
    ASSERT_TRUE(rec.wait_for_line(true, "tracing live", 10000));
    kill(target.pid(), SIGUSR1);
    EXPECT_EQ(target.wait().exit_status, 0);
    auto r = rec.wait();
    ASSERT_EQ(r.exit_status, 0) << r.err;
    auto j = load_json(dir / "r.json");
    const auto* f = file_entry(j, file);
    ASSERT_NE(f, nullptr) << j["files"];
    EXPECT_EQ((*f)["ops"]["read"]["calls"], 1);
    EXPECT_EQ((*f)["ops"]["read"]["bytes"], 4096);
    EXPECT_EQ((*f)["size"], 8192);
}

}  // namespace
}  // namespace iolens::test
