// util/output_file.h: the rules every file iolens writes follows.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "util/output_file.h"

namespace {

namespace fs = std::filesystem;
using iolens::OutputFile;

struct Dir {
    std::string path;
    Dir() {
        char t[] = "/tmp/iolens-outfile-XXXXXX";
        path = mkdtemp(t);
    }
    ~Dir() { fs::remove_all(path); }
    std::string operator/(const std::string& n) const { return path + "/" + n; }
    size_t entries() const { return static_cast<size_t>(std::distance(fs::directory_iterator(path), {})); }
};

std::string slurp(const std::string& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

mode_t lmode(const std::string& p) {
    struct stat st {};
    return ::lstat(p.c_str(), &st) == 0 ? st.st_mode : 0;
}

TEST(OutputFile, NothingHasTheNameUntilCommitAndAnUncommittedFileIsRemoved) {
    Dir d;
    {
        auto f = OutputFile::create(d / "out", false, "the test file");
        ASSERT_TRUE(f.ok()) << f.error().message;
        EXPECT_FALSE(fs::exists(fs::symlink_status(d / "out")));
        EXPECT_EQ(d.entries(), 1u);  // the temporary file
    }
    EXPECT_EQ(d.entries(), 0u);
}

TEST(OutputFile, ModeIsExactly0600WhateverTheUmask) {
    Dir d;
    for (mode_t mask : {0000, 0022, 0077}) {
        const mode_t old = ::umask(mask);
        const std::string p = d / ("m" + std::to_string(mask));
        ASSERT_TRUE(iolens::write_output_file(p, false, "the test file", "x").ok());
        ::umask(old);
        EXPECT_EQ(lmode(p) & 07777, 0600u) << "umask " << mask;
        EXPECT_EQ(slurp(p), "x");
    }
}

TEST(OutputFile, AnExistingFileNeedsForceAndIsReplacedNotWrittenThrough) {
    Dir d;
    std::ofstream(d / "out") << "old";
    ASSERT_EQ(::link((d / "out").c_str(), (d / "other").c_str()), 0);
    auto r = iolens::write_output_file(d / "out", false, "the test file", "new");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().message, (d / "out") + " exists; use -f to replace it");
    EXPECT_EQ(slurp(d / "out"), "old");
    ASSERT_TRUE(iolens::write_output_file(d / "out", true, "the test file", "new").ok());
    EXPECT_EQ(slurp(d / "out"), "new");
    EXPECT_EQ(slurp(d / "other"), "old");  // the old inode, untouched
}

TEST(OutputFile, ASymlinkIsReplacedItselfNeverItsTarget) {
    Dir d;
    std::ofstream(d / "target") << "target";
    ASSERT_EQ(::symlink((d / "target").c_str(), (d / "link").c_str()), 0);
    EXPECT_FALSE(iolens::write_output_file(d / "link", false, "the test file", "new").ok());
    ASSERT_TRUE(iolens::write_output_file(d / "link", true, "the test file", "new").ok());
    EXPECT_TRUE(S_ISREG(lmode(d / "link")));
    EXPECT_EQ(slurp(d / "target"), "target");
    // A dangling link: its target is never created.
    ASSERT_EQ(::symlink((d / "nowhere").c_str(), (d / "dangling").c_str()), 0);
    ASSERT_TRUE(iolens::write_output_file(d / "dangling", true, "the test file", "x").ok());
    EXPECT_FALSE(fs::exists(fs::symlink_status(d / "nowhere")));
}

TEST(OutputFile, ForceNeverReplacesAnythingButAFileOrALink) {
    Dir d;
    ASSERT_EQ(::mkfifo((d / "fifo").c_str(), 0600), 0);
    ASSERT_EQ(::mkdir((d / "sub").c_str(), 0700), 0);
    for (const std::string p : {std::string("/dev/null"), d / "fifo", d / "sub"}) {
        auto r = iolens::check_output_path(p, true, "the test file");
        ASSERT_FALSE(r.ok()) << p;
        EXPECT_NE(r.error().message.find(p), std::string::npos) << r.error().message;
    }
    EXPECT_TRUE(S_ISCHR(lmode("/dev/null")));
    EXPECT_TRUE(S_ISFIFO(lmode(d / "fifo")));
    EXPECT_TRUE(S_ISDIR(lmode(d / "sub")));
    EXPECT_FALSE(iolens::check_output_path("", true, "the test file").ok());
}

TEST(OutputFile, CommitRefusesANameThatAppearedMeanwhileWithoutForce) {
    Dir d;
    auto f = OutputFile::create(d / "out", false, "the test file");
    ASSERT_TRUE(f.ok());
    std::ofstream(d / "out") << "raced";
    auto r = f->commit();
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("use -f"), std::string::npos);
    EXPECT_EQ(slurp(d / "out"), "raced");
}

TEST(OutputFile, SameFileComparesInodesAndDirectoriesNotText) {
    Dir d;
    EXPECT_TRUE(iolens::same_file(d / "x", d.path + "/./x"));  // neither exists
    EXPECT_FALSE(iolens::same_file(d / "x", d / "y"));
    std::ofstream(d / "x") << "1";
    ASSERT_EQ(::link((d / "x").c_str(), (d / "hard").c_str()), 0);
    EXPECT_TRUE(iolens::same_file(d / "x", d / "hard"));
    EXPECT_FALSE(iolens::same_file(d / "x", d / "y"));
    const std::string cwd = fs::current_path();
    fs::current_path(d.path);
    EXPECT_TRUE(iolens::same_file("x", d / "x"));
    fs::current_path(cwd);
}

}  // namespace
