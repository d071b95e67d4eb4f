// `iolens self-test` on the command line: its options parse, bad ones are
// refused, and the driver subcommand it relaunches itself as stays hidden.
#include <gtest/gtest.h>

#include <algorithm>

#include "cli/commands.h"
#include "cli_parse.h"

namespace iolens::cli {
namespace {

using test::parse;

TEST(SelfTestCli, OptionsParse) {
    Action a;
    EXPECT_EQ(parse({"self-test"}, a), 0);
    Action b;
    EXPECT_EQ(parse({"self-test", "--dir", "/mnt/x", "--json", "v.json", "--keep"}, b), 0);
    Action c;
    EXPECT_EQ(parse({"-v", "self-test", "--dir", "/mnt/x"}, c), 0);
}

TEST(SelfTestCli, BadOptionsAreRefused) {
    Action a;
    EXPECT_NE(parse({"self-test", "--bogus"}, a), 0);
    Action b;
    EXPECT_NE(parse({"self-test", "--dir"}, b), 0);
    // The driver needs both its directory and its report pipe.
    Action c;
    EXPECT_NE(parse({"__self-test-workload", "--dir", "/x"}, c), 0);
    Action d;
    EXPECT_NE(parse({"__self-test-workload", "--dir", "/x", "--report-fd", "-1"}, d), 0);
}

TEST(SelfTestCli, DriverSubcommandIsHiddenFromHelp) {
    CLI::App app;
    Action action;
    build_app(app, action);
    const std::string help = app.help();
    EXPECT_NE(help.find("self-test"), std::string::npos) << help;
    EXPECT_EQ(help.find("__self-test-workload"), std::string::npos) << help;
}

}  // namespace
}  // namespace iolens::cli
