// record --cgroup (issue #16): every process of a cgroup v2 group is traced,
// those in it at attach and those that join it later, and nothing else. The
// test mounts a cgroup2 hierarchy of its own (this machine runs v1
// controllers; the v2 hierarchy exists beside them).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <fstream>

#include "support.h"

namespace iolens::test {
namespace {

class Cgroup : public ::testing::Test {
protected:
    void SetUp() override {
        if (!is_root()) GTEST_SKIP() << "needs root (CAP_BPF, CAP_PERFMON) to load BPF programs";
        ASSERT_TRUE(no_iolens_programs_within(5000)) << "iolens BPF programs from an earlier run are loaded";
        mnt_ = dir / "cg2";
        ASSERT_EQ(mkdir(mnt_.c_str(), 0755), 0);
        ASSERT_EQ(mount("none", mnt_.c_str(), "cgroup2", 0, nullptr), 0)
            << "cannot mount a cgroup2 hierarchy: " << strerror(errno);
        mounted_ = true;
        group_ = mnt_ + "/iolens-test-" + std::to_string(getpid());
        ASSERT_EQ(mkdir(group_.c_str(), 0755), 0) << strerror(errno);
    }
    void TearDown() override {
        if (!group_.empty()) {
            for (int i = 0; i < 50 && rmdir(group_.c_str()) != 0; ++i) usleep(100'000);
        }
        if (mounted_) umount2(mnt_.c_str(), MNT_DETACH);
        if (is_root() && !IsSkipped())
            EXPECT_TRUE(no_iolens_programs_within(5000)) << "an iolens BPF program is still loaded";
    }
    // argv run inside the group: a shell joins it, then execs argv.
    std::vector<std::string> in_group(std::vector<std::string> argv) const {
        std::vector<std::string> out{"/bin/sh", "-c", "echo $$ > \"$0\" && exec \"$@\"",
                                     group_ + "/cgroup.procs"};
        out.insert(out.end(), argv.begin(), argv.end());
        return out;
    }
    std::vector<std::string> target(const std::string& file) const {
        return {workload_bin(), "attach-target", "--file", file, "--children", "3", "--reads", "100"};
    }

    TempDir dir;
    std::string mnt_, group_;
    bool mounted_ = false;
};

uint64_t reads_of(const nlohmann::json& report, const std::string& path) {
    for (const auto& f : report["files"])
        if (f["path"] == path) return f["ops"]["read"]["calls"].get<uint64_t>();
    return 0;
}

bool has_file(const nlohmann::json& report, const std::string& path) {
    for (const auto& f : report["files"])
        if (f["path"] == path) return true;
    return false;
}

// A member at attach, a process that joins after it, and an outsider doing
// the same work at the same time: the two members' calls exactly, the
// outsider's not at all; the recording ends by itself when the group empties.
TEST_F(Cgroup, TracesTheGroupsMembersAndJoinersOnly) {
    Background member(in_group(target(dir / "member.bin")));
    ASSERT_TRUE(member.wait_for_line(false, "ready", 10000));
    Background rec(
        {iolens_bin(), "record", "--cgroup", group_, "-o", dir / "rec.iolens", "--json", dir / "r.json"});
    ASSERT_TRUE(rec.wait_for_line(true, "tracing live", 10000));

    Background joiner(in_group(target(dir / "joiner.bin")));
    Background outsider(target(dir / "outsider.bin"));
    ASSERT_TRUE(joiner.wait_for_line(false, "ready", 10000));
    ASSERT_TRUE(outsider.wait_for_line(false, "ready", 10000));
    for (pid_t p : {member.pid(), joiner.pid(), outsider.pid()}) kill(p, SIGUSR1);
    EXPECT_EQ(member.wait().exit_status, 0);
    EXPECT_EQ(joiner.wait().exit_status, 0);
    EXPECT_EQ(outsider.wait().exit_status, 0);

    auto r = rec.wait();  // ends by itself: the group has no process left
    ASSERT_EQ(r.exit_status, 0) << r.err;
    const auto j = load_json(dir / "r.json");
    EXPECT_EQ(j["capture"]["cgroup_path"], group_);
    struct stat st {};
    ASSERT_EQ(stat(group_.c_str(), &st), 0);
    EXPECT_EQ(j["capture"]["cgroup_id"], static_cast<uint64_t>(st.st_ino));
    EXPECT_EQ(j["capture"]["stop_reason"], "every process of the cgroup exited");
    EXPECT_EQ(j["capture"]["lost_events"], 0);
    EXPECT_EQ(reads_of(j, dir / "member.bin"), 300u);
    EXPECT_EQ(reads_of(j, dir / "joiner.bin"), 300u);
    EXPECT_FALSE(has_file(j, dir / "outsider.bin")) << "a process outside the group was traced";
    EXPECT_EQ(j["totals"]["read"]["bytes"].get<uint64_t>() >= 600u * 4096, true);
    // Both parents and their 3 children each; nothing of the outsider's.
    int members = 0, children = 0;
    for (const auto& p : j["processes"]) {
        const auto pid = p["pid"].get<pid_t>();
        EXPECT_NE(pid, outsider.pid());
        if (pid == member.pid() || pid == joiner.pid())
            ++members;
        else if (p["ppid"] == member.pid() || p["ppid"] == joiner.pid())
            ++children;
    }
    EXPECT_EQ(members, 2);
    EXPECT_EQ(children, 6);
    const auto& pids = j["capture"]["pids"];
    EXPECT_NE(std::find(pids.begin(), pids.end(), member.pid()), pids.end()) << pids;
    EXPECT_NE(std::find(pids.begin(), pids.end(), joiner.pid()), pids.end()) << pids;
}

// Started before the job: an empty group is waited for, and a job started
// into it is traced from its first call.
TEST_F(Cgroup, AnEmptyGroupIsWaitedForUntilItsJobEnds) {
    Background rec(
        {iolens_bin(), "record", "--cgroup", group_, "-o", dir / "rec.iolens", "--json", dir / "r.json"});
    ASSERT_TRUE(rec.wait_for_line(true, "tracing live", 10000));
    usleep(600'000);  // a few liveness checks of the empty group
    const std::string file = dir / "data.bin";
    {
        std::ofstream f(file, std::ios::binary);
        f << std::string(1 << 20, 'x');
    }
    auto job = run(in_group({"/bin/cat", file}));
    ASSERT_EQ(job.exit_status, 0) << job.err;
    auto r = rec.wait();
    ASSERT_EQ(r.exit_status, 0) << r.err;
    const auto j = load_json(dir / "r.json");
    bool found = false;
    for (const auto& f : j["files"])
        if (f["path"] == file) {
            found = true;
            EXPECT_EQ(f["ops"]["read"]["bytes"], 1 << 20);
        }
    EXPECT_TRUE(found) << "the job's file is not in the report";
}

// clone3(CLONE_INTO_CGROUP) starts a child straight in the group, without a
// move (systemd and container runtimes do this): its parent here, the test,
// is not traced, and no cgroup_attach_task fires. The fork probe sees it.
TEST_F(Cgroup, AProcessForkedIntoTheGroupIsTraced) {
    const std::string file = dir / "cloned.bin";
    {
        std::ofstream f(file, std::ios::binary);
        f << std::string(256 << 10, 'y');
    }
    Background rec(
        {iolens_bin(), "record", "--cgroup", group_, "-o", dir / "rec.iolens", "--json", dir / "r.json"});
    ASSERT_TRUE(rec.wait_for_line(true, "tracing live", 10000));
    const int group_fd = open(group_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ASSERT_GE(group_fd, 0);
    clone_args args{};
    args.flags = CLONE_INTO_CGROUP;
    args.exit_signal = SIGCHLD;
    args.cgroup = static_cast<uint64_t>(group_fd);
    const long child = syscall(SYS_clone3, &args, sizeof(args));
    if (child == 0) {
        const int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        execl("/bin/cat", "cat", file.c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    close(group_fd);
    ASSERT_GT(child, 0) << "clone3(CLONE_INTO_CGROUP): " << strerror(errno);
    int st = 0;
    ASSERT_EQ(waitpid(static_cast<pid_t>(child), &st, 0), child);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    auto r = rec.wait();
    ASSERT_EQ(r.exit_status, 0) << r.err;
    const auto j = load_json(dir / "r.json");
    bool found = false;
    for (const auto& f : j["files"])
        if (f["path"] == file) {
            found = true;
            EXPECT_EQ(f["ops"]["read"]["bytes"], 256 << 10);
        }
    EXPECT_TRUE(found) << "the child forked into the group is not in the report";
    bool test_traced = false;
    for (const auto& p : j["processes"]) test_traced |= p["pid"] == getpid();
    EXPECT_FALSE(test_traced) << "the parent outside the group was traced";
}

TEST_F(Cgroup, AV1GroupOrAMissingOneIsRefusedWithTheWayOut) {
    auto r = run({iolens_bin(), "record", "--cgroup", group_ + "/no-such-group", "-o", dir / "x.iolens"});
    EXPECT_NE(r.exit_status, 0);
    EXPECT_NE(r.err.find("no such cgroup v2 group"), std::string::npos) << r.err;
    r = run({iolens_bin(), "record", "--cgroup", mnt_, "-o", dir / "x.iolens"});
    EXPECT_NE(r.exit_status, 0);
    EXPECT_NE(r.err.find("is the root of the cgroup2 hierarchy"), std::string::npos) << r.err;
    r = run({iolens_bin(), "record", "--cgroup", group_, "-p", "1", "-o", dir / "x.iolens"});
    EXPECT_EQ(r.exit_status, 2) << r.err;
    struct statfs fs {};
    if (statfs("/sys/fs/cgroup/memory", &fs) == 0 && fs.f_type == 0x27e0eb) {
        r = run({iolens_bin(), "record", "--cgroup", "/sys/fs/cgroup/memory", "-o", dir / "x.iolens"});
        EXPECT_NE(r.exit_status, 0);
        EXPECT_NE(r.err.find("is a cgroup v1 group"), std::string::npos) << r.err;
        EXPECT_NE(r.err.find("mount -t cgroup2"), std::string::npos) << r.err;
    }
    EXPECT_FALSE(std::ifstream(dir / "x.iolens").good()) << "a refused record left a file";
}

}  // namespace
}  // namespace iolens::test
