// `iolens export` on the command line: options parse, bad ones are refused,
// and the exit statuses are report's (0 complete, 3 partial, 1 unreadable,
// 2 an existing output without -f).
#include <gtest/gtest.h>

#include "cli_parse.h"
#include "export_test.h"

namespace iolens::cli {
namespace {

using test::parse;

TEST(ExportCli, OptionsParse) {
    Action a;
    EXPECT_EQ(parse({"export"}, a), 0);
    Action b;
    EXPECT_EQ(parse({"export", "r.iolens", "--format", "chrome", "-o", "t.json", "-f"}, b), 0);
    Action c;
    EXPECT_EQ(parse({"export", "--format", "dftracer", "--output", "t.pfw.gz", "--rank-env", "MY_RANK"}, c),
              0);
    Action d;
    EXPECT_NE(parse({"export", "--format", "json"}, d), 0);
    Action e;
    EXPECT_NE(parse({"export", "-o", ""}, e), 0);
}

int run(std::vector<std::string> args) {
    Action a;
    if (parse(std::move(args), a) != 0) return -1;
    return a();
}

TEST(ExportCli, ExitStatusesAreReports) {
    iolens::test::ExportDir dir;
    iolens::test::write_known_recording(dir / "ok.iolens");
    iolens::test::write_known_recording(dir / "partial.iolens", /*complete=*/false);
    EXPECT_EQ(run({"export", dir / "ok.iolens", "-o", dir / "ok.pftrace"}), 0);
    EXPECT_EQ(run({"export", dir / "ok.iolens", "-o", dir / "ok.pftrace"}), 2);  // exists, no -f
    EXPECT_EQ(run({"export", dir / "ok.iolens", "-o", dir / "ok.pftrace", "-f"}), 0);
    EXPECT_EQ(run({"export", dir / "partial.iolens", "--format", "chrome", "-o", dir / "p.json"}), 3);
    EXPECT_TRUE(std::filesystem::exists(dir / "p.json"));
    EXPECT_EQ(run({"export", dir / "missing.iolens", "-o", dir / "m.pftrace"}), 1);
    EXPECT_FALSE(std::filesystem::exists(dir / "m.pftrace"));
}

}  // namespace
}  // namespace iolens::cli
