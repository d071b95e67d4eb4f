// `iolens top` end to end (issue #17): --batch blocks whose intervals add up
// to the recording's totals, and the full-screen view driven in a real
// terminal (tmux: send-keys to switch tables and quit, capture-pane to read
// the screen).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "support.h"

namespace iolens::test {
namespace {

class Top : public ::testing::Test {
protected:
    void SetUp() override {
        if (!is_root()) GTEST_SKIP() << "needs root (CAP_BPF, CAP_PERFMON) to load BPF programs";
        data = dir / "ds";
        ASSERT_EQ(
            run({workload_bin(), "make-dataset", "--dir", data, "--files", "8", "--size", "1m"}).exit_status,
            0);
    }
    std::vector<std::string> job(const std::string& epochs) const {
        return {workload_bin(), "dl",   "--dir",     data, "--files",      "8",    "--size", "1m",
                "--epochs",     epochs, "--workers", "2",  "--compute-us", "20000"};
    }
    TempDir dir;
    std::string data;
};

TEST_F(Top, BatchIntervalsAddUpToTheRecordingsTotals) {
    std::vector<std::string> cmd = {iolens_bin(), "top", "-b", "-i", "200ms", "-o", dir / "top.iolens", "--"};
    for (const auto& a : job("12")) cmd.push_back(a);
    const auto r = run(cmd);
    ASSERT_EQ(r.exit_status, 0) << r.err;
    const std::regex line(
        R"(interval read_bytes=(\d+) write_bytes=(\d+) calls=(\d+); total read_bytes=(\d+))");
    uint64_t sum = 0, calls = 0, blocks = 0, last_total = 0;
    std::istringstream in(r.out);
    for (std::string l; std::getline(in, l);) {
        std::smatch m;
        if (!std::regex_search(l, m, line)) continue;
        ++blocks;
        sum += std::stoull(m[1]);
        calls += std::stoull(m[3]);
        last_total = std::stoull(m[4]);
    }
    EXPECT_GE(blocks, 3u) << r.out;  // 12 epochs of 8 x 20 ms: over a second
    // Every sample read 12 times, all of it in some interval.
    EXPECT_EQ(sum, 12ull * 8 * (1 << 20)) << r.out;
    EXPECT_EQ(last_total, sum);
    ASSERT_EQ(run({iolens_bin(), "report", dir / "top.iolens", "--json", dir / "r.json"}).exit_status, 0);
    const auto j = load_json(dir / "r.json");
    EXPECT_EQ(j["totals"]["read"]["bytes"], sum);
    uint64_t all_calls = 0;
    for (const auto& [name, op] : j["totals"].items()) all_calls += op["calls"].get<uint64_t>();
    EXPECT_EQ(all_calls, calls);
    EXPECT_NE(r.out.find("rank 0"), std::string::npos) << r.out;
}

// record --live: top's header line on stderr every second, while the
// recording and its report stay what they would be without it.
TEST_F(Top, RecordLiveShowsTheHeaderLineEverySecond) {
    std::vector<std::string> cmd = {iolens_bin(),        "record", "--live",          "-o",
                                    dir / "live.iolens", "--json", dir / "live.json", "--"};
    for (const auto& a : job("24")) cmd.push_back(a);  // 24 epochs of 8 x 20 ms: about 4 s
    const auto r = run(cmd);
    ASSERT_EQ(r.exit_status, 0) << r.err;
    size_t lines = 0;
    for (size_t at = 0; (at = r.err.find(" traced, read ", at)) != std::string::npos; ++at) ++lines;
    EXPECT_GE(lines, 2u) << r.err;
    EXPECT_NE(r.err.find("0 lost"), std::string::npos) << r.err;
    const auto j = load_json(dir / "live.json");
    EXPECT_EQ(j["totals"]["read"]["bytes"], 24ull * 8 * (1 << 20));
}

// tmux on a socket of its own; the pane's screen as text.
class Tmux {
public:
    Tmux() : socket_("iolens-test-" + std::to_string(getpid())) {}
    ~Tmux() { run({"tmux", "-L", socket_, "kill-server"}); }
    bool start(const std::string& shell_command) {
        return run({"tmux", "-L", socket_, "new-session", "-d", "-s", "t", "-x", "150", "-y", "40",
                    shell_command})
                   .exit_status == 0;
    }
    std::string screen() { return run({"tmux", "-L", socket_, "capture-pane", "-p", "-t", "t"}).out; }
    void keys(const std::string& k) { run({"tmux", "-L", socket_, "send-keys", "-t", "t", k}); }
    // Waits until the screen holds text; returns the screen.
    std::string wait_for(const std::string& text, int timeout_ms = 15000) {
        std::string s;
        for (int waited = 0; waited < timeout_ms; waited += 100) {
            s = screen();
            if (s.find(text) != std::string::npos) return s;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        ADD_FAILURE() << "no '" << text << "' on the screen:\n" << s;
        return s;
    }

private:
    std::string socket_;
};

TEST_F(Top, FullScreenKeysSwitchTablesAndQRestoresTheTerminal) {
    if (access("/usr/bin/tmux", X_OK) != 0) GTEST_FAIL() << "no /usr/bin/tmux: run tools/install-deps.sh";
    std::string cmd = "echo BEFORE-TOP; " + std::string(iolens_bin()) + " top -i 300ms --";
    for (const auto& a : job("60")) cmd += " " + a;
    cmd += " 2>" + (dir / "top.err") + "; echo TOP-EXIT=$?; sleep 60";
    Tmux t;
    ASSERT_TRUE(t.start(cmd));
    auto s = t.wait_for("RANK");
    EXPECT_NE(s.find("iolens top - "), std::string::npos) << s;
    EXPECT_NE(s.find("rank 0"), std::string::npos) << s;
    EXPECT_EQ(s.find("BEFORE-TOP"), std::string::npos) << "not on the alternate screen:\n" << s;
    t.keys("f");
    s = t.wait_for("FILE");
    EXPECT_NE(s.find("/ds/sample_0000"), std::string::npos) << s;
    t.keys("p");
    s = t.wait_for("PROCESS");
    EXPECT_NE(s.find("iolens-workload"), std::string::npos) << s;
    t.keys("d");
    t.wait_for("DEVICE");
    t.keys("q");
    // Quitting stops the watching; the command runs on untraced and is
    // waited for, and the shell's screen comes back.
    s = t.wait_for("TOP-EXIT=", 60000);
    EXPECT_NE(s.find("TOP-EXIT=0"), std::string::npos) << s;
    EXPECT_NE(s.find("BEFORE-TOP"), std::string::npos) << "the terminal was not restored:\n" << s;
    EXPECT_EQ(s.find("RANK"), std::string::npos) << s;
    std::ifstream err(dir / "top.err");
    std::stringstream e;
    e << err.rdbuf();
    EXPECT_NE(e.str().find("stopped from iolens top (q)"), std::string::npos) << e.str();
}

}  // namespace
}  // namespace iolens::test
