// Outside check (ctest -R '^OutsideCheck/'): real programs (tar creating and
// extracting a small tree, a Python import, the sqlite3 shell committing
// transactions with fsyncs; tools/workload/strace_edges.py, the rules' edge
// cases) run under strace -f -yy, and strace under iolens,
// so both watch the same execution; tools/workload/strace_compare.py counts
// strace's calls by iolens's rules and every traced process's calls, errors,
// bytes and requested bytes per class must equal iolens's exactly (the rules,
// and the one call only iolens can see, are in the script). -s 16: strace
// then prints the first 16 iovecs of a vectored call, the ones iolens sums.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "support.h"

namespace iolens::test {
namespace {

struct Program {
    const char* name;
    const char* binary;      // must exist, else the case is skipped
    const char* busy_class;  // a class the program must have used (the check is not vacuous)
};

class StraceCheck : public ::testing::TestWithParam<Program> {};

// A small tree: nested directories, files of 0 bytes to 100 KB.
void make_tree(const std::string& root) {
    for (const char* d : {"", "/a", "/a/b", "/c"}) ASSERT_EQ(mkdir((root + d).c_str(), 0755), 0) << root + d;
    int n = 0;
    for (const char* d : {"", "/a", "/a/b", "/c"})
        for (size_t size : {0u, 1u, 4095u, 4096u, 70000u, 100000u}) {
            std::ofstream f(root + d + "/f" + std::to_string(n++));
            f << std::string(size, static_cast<char>('a' + n % 26));
        }
}

std::vector<std::string> argv_of(const Program& p, const TempDir& dir) {
    const std::string name = p.name;
    if (name == "tar_create") return {"/usr/bin/tar", "-cf", dir / "out.tar", "-C", dir / "tree", "."};
    if (name == "tar_extract") return {"/usr/bin/tar", "-xf", dir / "in.tar", "-C", dir / "x"};
    if (name == "python_import") return {"/usr/bin/python3", "-c", "import json, email, sqlite3"};
    if (name == "edges")
        return {"/usr/bin/python3", IOLENS_SOURCE_DIR "/tools/workload/strace_edges.py", dir.path()};
    // Two transactions (the table's, the inserts'): journal, database and
    // directory fsyncs.
    return {"/usr/bin/sqlite3", dir / "db.sqlite",
            "PRAGMA synchronous=FULL; CREATE TABLE t(x); BEGIN; WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL "
            "SELECT i+1 FROM c WHERE i<2000) INSERT INTO t SELECT randomblob(100) FROM c; COMMIT;"};
}

void prepare(const Program& p, const TempDir& dir) {
    const std::string name = p.name;
    if (name == "tar_create") make_tree(dir / "tree");
    if (name == "tar_extract") {
        make_tree(dir / "tree");
        ASSERT_EQ(run({"/usr/bin/tar", "-cf", dir / "in.tar", "-C", dir / "tree", "."}).exit_status, 0);
        ASSERT_EQ(mkdir((dir / "x").c_str(), 0755), 0);
    }
}

TEST_P(StraceCheck, SameCallsAndBytesPerProcess) {
    if (!is_root()) GTEST_SKIP() << "needs root (CAP_BPF, CAP_PERFMON) to load BPF programs";
    const Program p = GetParam();
    for (const char* bin : {"/usr/bin/strace", p.binary})
        if (access(bin, X_OK) != 0) GTEST_SKIP() << "no " << bin << " (tools/install-deps.sh installs it)";
    TempDir dir;
    prepare(p, dir);
    std::vector<std::string> argv = {iolens_bin(),
                                     "record",
                                     "-o",
                                     dir / "rec.iolens",
                                     "--json",
                                     dir / "report.json",
                                     "--",
                                     "/usr/bin/strace",
                                     "-f",
                                     "-yy",
                                     "-qq",
                                     "-s",
                                     "16",
                                     "-o",
                                     dir / "trace.txt"};
    for (auto& a : argv_of(p, dir)) argv.push_back(a);
    const auto r = run(argv);
    ASSERT_EQ(r.exit_status, 0) << r.err;
    const auto j = load_json(dir / "report.json");
    EXPECT_EQ(j["capture"]["lost_events"], 0);
    const auto cmp = run({"/usr/bin/python3", IOLENS_SOURCE_DIR "/tools/workload/strace_compare.py",
                          dir / "report.json", dir / "trace.txt"});
    EXPECT_EQ(cmp.exit_status, 0) << cmp.out << cmp.err;
    uint64_t busy = 0;
    for (const auto& proc : j["processes"])
        if (proc.value("comm", "") != "strace") busy += proc["ops"][p.busy_class]["calls"].get<uint64_t>();
    EXPECT_GT(busy, 0u) << p.busy_class << " calls of the program: " << cmp.out;
}

INSTANTIATE_TEST_SUITE_P(OutsideCheck, StraceCheck,
                         ::testing::Values(Program{"tar_create", "/usr/bin/tar", "readdir"},
                                           Program{"tar_extract", "/usr/bin/tar", "write"},
                                           Program{"python_import", "/usr/bin/python3", "stat"},
                                           Program{"sqlite", "/usr/bin/sqlite3", "sync"},
                                           Program{"edges", "/usr/bin/python3", "seek"}),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace iolens::test
