// The documents generated from the command line (man pages, bash completion,
// --version) cover what the CLI11 definitions hold, so they cannot drift.
#include <gtest/gtest.h>

#include "cli/cli_doc.h"
#include "cli/commands.h"
#include "cli/completion.h"
#include "cli/man_page.h"
#include "cli/version.h"
#include "cli_parse.h"
#include "probes/catalog.h"

namespace iolens::cli {
namespace {

struct Cli {
    CLI::App app;
    Action action;
    Cli() { build_app(app, action); }
};

TEST(CliDoc, OnePagePerVisibleSubcommandAndTheRoot) {
    Cli cli;
    auto pages = man_pages(cli.app);
    std::vector<std::string> names;
    for (const auto& p : pages) names.push_back(p.name);
    EXPECT_EQ(names,
              (std::vector<std::string>{"iolens", "iolens-record", "iolens-report", "iolens-diff",
                                        "iolens-top", "iolens-export", "iolens-check", "iolens-self-test"}));
    for (const auto& p : pages) {
        EXPECT_EQ(p.roff.rfind(".TH ", 0), 0u) << p.name;
        EXPECT_NE(p.roff.find(".SH NAME\n" + roff_escape(p.name) + " \\- "), std::string::npos) << p.name;
        EXPECT_NE(p.roff.find(".SH SYNOPSIS"), std::string::npos) << p.name;
        EXPECT_NE(p.roff.find(".SH SEE ALSO"), std::string::npos) << p.name;
    }
}

TEST(CliDoc, EachPageHasEveryVisibleOptionAndNoHiddenOne) {
    Cli cli;
    auto pages = man_pages(cli.app);
    const auto subs = visible_subcommands(cli.app);
    ASSERT_EQ(pages.size(), subs.size() + 1);
    for (size_t i = 0; i < subs.size(); ++i) {
        const auto& roff = pages[i + 1].roff;
        for (const auto& o : visible_options(*subs[i]))
            for (const auto& n : o.names)
                EXPECT_NE(roff.find((o.positional ? "\\fI" : "\\fB") + roff_escape(n) + "\\fR"),
                          std::string::npos)
                    << pages[i + 1].name << " lacks " << n;
        EXPECT_NE(roff.find(".SH GLOBAL OPTIONS"), std::string::npos);
        EXPECT_NE(roff.find("\\-\\-verbose"), std::string::npos);
        EXPECT_EQ(roff.find("force\\-hook"), std::string::npos) << "hidden option in " << pages[i + 1].name;
    }
    EXPECT_EQ(pages[0].roff.find("__"), std::string::npos) << "a hidden subcommand in iolens(8)";
    EXPECT_NE(pages[0].roff.find("\\fBiolens-record\\fR(8)"), std::string::npos);
}

TEST(CliDoc, FootersBecomeSections) {
    Cli cli;
    auto pages = man_pages(cli.app);
    const auto& record = pages[1].roff;
    EXPECT_NE(record.find(".SH EXAMPLES\n.RS 4\n.nf\niolens record \\-\\- python train.py \\-\\-epochs 3\n"),
              std::string::npos)
        << record;
    EXPECT_NE(record.find(".SH EXIT STATUS\n"), std::string::npos);
    EXPECT_NE(pages[2].roff.find(".SH EXIT STATUS\n0 for a complete recording"), std::string::npos);
}

TEST(CliDoc, RoffEscape) {
    EXPECT_EQ(roff_escape("a-b --json -p"), "a-b \\-\\-json \\-p");
    EXPECT_EQ(roff_escape(".hidden"), "\\&.hidden");
    EXPECT_EQ(roff_escape("'quote"), "\\&'quote");
    EXPECT_EQ(roff_escape("back\\slash"), "back\\eslash");
}

TEST(CliDoc, ValueChoicesAndKinds) {
    EXPECT_EQ(value_choices("TEXT:{auto,always,never}"),
              (std::vector<std::string>{"auto", "always", "never"}));
    EXPECT_TRUE(value_choices("FILE").empty());
    EXPECT_EQ(value_kind("TEXT:{a,b}"), "TEXT");
    EXPECT_EQ(value_kind("DIR"), "DIR");
}

TEST(CliDoc, CompletionHasEverySubcommandAndOption) {
    Cli cli;
    const auto script = bash_completion(cli.app);
    EXPECT_NE(script.find("complete -F _iolens iolens"), std::string::npos);
    for (const auto* s : visible_subcommands(cli.app)) {
        EXPECT_NE(script.find("        " + s->get_name() + ")\n"), std::string::npos) << s->get_name();
        for (const auto& o : visible_options(*s))
            if (!o.positional)
                for (const auto& n : o.names) EXPECT_NE(script.find(" " + n), std::string::npos) << n;
    }
    EXPECT_EQ(script.find("__self-test-workload"), std::string::npos);
    EXPECT_EQ(script.find("--force-hook"), std::string::npos);
    EXPECT_NE(script.find("--color) COMPREPLY=($(compgen -W 'auto always never'"), std::string::npos);
    EXPECT_NE(script.find("--dir) COMPREPLY=($(compgen -d"), std::string::npos);
}

TEST(CliVersion, NamesTheVersionCommitAndEveryBuild) {
    const auto text = version_text();
    EXPECT_EQ(text.rfind(std::string("iolens ") + IOLENS_VERSION_STRING + "\ncommit ", 0), 0u) << text;
    EXPECT_NE(text.find("commit " + build_commit() + "\n"), std::string::npos);
    EXPECT_FALSE(build_commit().empty());
    for (const auto& o : probes::bpf_objects()) {
        const auto line_at = text.find("\n  " + std::string(o.family) + " ");
        ASSERT_NE(line_at, std::string::npos) << o.family;
        const auto line = text.substr(line_at + 1, text.find('\n', line_at + 1) - line_at - 1);
        EXPECT_NE(line.find(probes::variant_name(o.build)), std::string::npos) << line;
    }
}

TEST(CliVersion, VersionFlagExitsZero) {
    Action action;
    EXPECT_EQ(test::parse({"--version"}, action), 0);
}

}  // namespace
}  // namespace iolens::cli
