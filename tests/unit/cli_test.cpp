// Command-line parsing and validation, without running anything.
#include <gtest/gtest.h>

#include "cli/commands.h"
#include "cli_parse.h"
#include "cli/options.h"
#include "cli/output.h"
#include "cli/record_command.h"
#include "report/html_renderer.h"

namespace iolens::cli {
namespace {

TEST(CliDuration, UnitsAndPlainSeconds) {
    EXPECT_EQ(*parse_duration("90"), 90'000'000'000ull);
    EXPECT_EQ(*parse_duration("30s"), 30'000'000'000ull);
    EXPECT_EQ(*parse_duration("500ms"), 500'000'000ull);
    EXPECT_EQ(*parse_duration("1.5s"), 1'500'000'000ull);
    EXPECT_EQ(*parse_duration("250us"), 250'000ull);
    EXPECT_EQ(*parse_duration("5m"), 300'000'000'000ull);
    EXPECT_EQ(*parse_duration("1h"), 3'600'000'000'000ull);
}

TEST(CliDuration, GarbageIsRejectedWithTheOffendingText) {
    for (const char* bad : {"", "soon", "-3s", "0", "10parsecs", "1e400", "nan", "s"}) {
        auto d = parse_duration(bad);
        ASSERT_FALSE(d.ok()) << bad;
        if (*bad) EXPECT_NE(d.error().message.find(bad), std::string::npos) << d.error().message;
    }
}

TEST(CliRecord, CommandOrPidButNotBothNorNeither) {
    RecordCliOptions o;
    EXPECT_NE(validate_record(o).error().message.find("nothing to trace"), std::string::npos);
    o.command = {"true"};
    o.pid = 42;
    EXPECT_NE(validate_record(o).error().message.find("not both"), std::string::npos);
    o.pid = 0;
    auto ok = validate_record(o);
    ASSERT_TRUE(ok.ok());
    EXPECT_EQ(ok->command, std::vector<std::string>{"true"});
    EXPECT_FALSE(ok->pid.has_value());
    EXPECT_EQ(ok->output_path, "iolens.data");
}

TEST(CliRecord, OptionsAreCheckedAndCarriedThrough) {
    RecordCliOptions o;
    o.pid = 4242;
    o.duration = "60s";
    o.output = "x.iolens";
    o.force = true;
    o.ringbuf_mib = 16;
    o.out.max_files = 7;
    auto r = validate_record(o);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(*r->pid, 4242);
    EXPECT_EQ(*r->duration_ns, 60'000'000'000ull);
    EXPECT_EQ(r->output_path, "x.iolens");
    EXPECT_TRUE(r->force);
    EXPECT_EQ(r->probe.ringbuf_bytes, 16ull << 20);
    EXPECT_EQ(builder_options(o.out).max_files, 7u);  // the summary record prints

    o.ringbuf_mib = 3;
    EXPECT_NE(validate_record(o).error().message.find("power of two"), std::string::npos);
    o.ringbuf_mib = 16;
    o.out.json_path = "x.iolens";
    EXPECT_NE(validate_record(o).error().message.find("same file"), std::string::npos);
    o.out.json_path.clear();
    o.out.html_path = "./x.iolens";
    EXPECT_NE(validate_record(o).error().message.find("--html ./x.iolens and the recording"),
              std::string::npos);
    o.out.html_path = "r.html";
    EXPECT_EQ(builder_options(o.out).timeline_bins,
              iolens::report::kHtmlTimelineBins);  // the HTML's timeline
    o.out.html_path.clear();
    EXPECT_EQ(builder_options(o.out).timeline_bins, 0u);  // no cost without --html
    o.duration = "forever";
    EXPECT_NE(validate_record(o).error().message.find("forever"), std::string::npos);
}

using test::parse;

TEST(CliApp, SubcommandsParse) {
    Action a;
    EXPECT_EQ(parse({"record", "--", "python3", "train.py", "--epochs", "3"}, a), 0);
    Action b;
    EXPECT_EQ(parse({"record", "-p", "4242", "-d", "60s", "-o", "x", "-f", "--json", "r.json"}, b), 0);
    Action c;
    EXPECT_EQ(parse({"report", "iolens.data", "--json", "r.json", "--top", "5"}, c), 0);
    Action e;
    EXPECT_EQ(parse({"report", "iolens.data", "--html", "r.html", "-f"}, e), 0);
    Action f;
    EXPECT_EQ(parse({"record", "--html", "r.html", "--", "true"}, f), 0);
    Action d;
    EXPECT_EQ(parse({"check"}, d), 0);
}

TEST(CliApp, UnknownSubcommandsAndOptionsFail) {
    Action a;
    EXPECT_NE(parse({"frobnicate"}, a), 0);
    Action b;
    EXPECT_NE(parse({"record", "--bogus"}, b), 0);
    Action c;
    EXPECT_NE(parse({"record", "-p", "abc"}, c), 0);
    Action d;
    EXPECT_NE(parse({"report", "--color", "sometimes"}, d), 0);
    Action e;
    EXPECT_NE(parse({}, e), 0);
}

}  // namespace
}  // namespace iolens::cli
