// Findings in both views: the JSON array with exactly the documented keys,
// and the terminal "Findings" section, most severe first, within 80 columns.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "text_lines.h"
#include "analysis/findings.h"
#include "analysis_fixtures.h"
#include "report/json_renderer.h"
#include "report/terminal_renderer.h"

using namespace iolens::model;
using namespace iolens::test;
using iolens::report::render_terminal;
using iolens::report::report_to_json;
using iolens::report::TerminalOptions;
using nlohmann::json;

using iolens::test::columns;
using iolens::test::lines_of;

namespace {

// Several findings at every severity, with long paths in the evidence.
Report with_findings() {
    auto r = clean_report();
    for (auto& f : r.files) f.sequential = 10, f.random = 90;
    r.files[4].path =
        "/lustre/project/very/long/path/to/a/dataset/directory/with/many/levels/"
        "shard-000004-of-001024.tar";
    r.files[4].random = 900;
    r.totals[IOLENS_OP_READ] = op(200'000, 4 * kKiB, 20 * kS);
    r.ranks[0].critical_io_ns = 35 * kS;
    r.page_cache.readahead_unused_bytes = 1'500 * kMiB;
    r.ranks[1].io_time_ns = 40 * kS;
    iolens::analysis::add_findings(r);
    return r;
}

std::string terminal(const Report& r, bool color = false) {
    std::ostringstream out;
    TerminalOptions o;
    o.color = color;
    render_terminal(r, out, o);
    return out.str();
}

// The lines from the "Findings" title to the end.
std::vector<std::string> findings_lines(const std::string& text) {
    auto lines = lines_of(text);
    for (size_t i = 0; i < lines.size(); ++i)
        if (lines[i].rfind("Findings", 0) == 0) return {lines.begin() + i, lines.end()};
    return {};
}

}  // namespace

TEST(FindingsRender, JsonHasExactlyTheRequiredKeys) {
    const auto r = with_findings();
    ASSERT_GE(r.findings.size(), 4u);
    const json j = report_to_json(r);
    ASSERT_TRUE(j.at("findings").is_array());
    ASSERT_EQ(j["findings"].size(), r.findings.size());
    const std::set<std::string> want = {"id", "severity", "title", "evidence", "recommendation"};
    for (size_t i = 0; i < r.findings.size(); ++i) {
        const auto& f = j["findings"][i];
        std::set<std::string> keys;
        for (const auto& [k, v] : f.items()) keys.insert(k);
        EXPECT_EQ(keys, want);
        EXPECT_EQ(f["id"], r.findings[i].id);
        EXPECT_EQ(f["severity"], severity_name(r.findings[i].severity));
        EXPECT_TRUE(f["evidence"].is_object());
        EXPECT_TRUE(f["title"].is_string());
        EXPECT_TRUE(f["recommendation"].is_string());
    }
    // The stall follows the read pattern that explains it.
    EXPECT_EQ(j["findings"][0]["id"], "readahead_waste");
    EXPECT_EQ(j["findings"][1]["id"], "io_stall");
    EXPECT_EQ(j["findings"][1]["evidence"]["rank"], 0);
    EXPECT_EQ(j["findings"][1]["evidence"]["stall_share"], 0.35);
    EXPECT_EQ(j["findings"][1]["evidence"]["explained_by"], "readahead_waste");
}

TEST(FindingsRender, JsonEmptyArrayWithoutFindings) {
    const json j = report_to_json(clean_report());
    ASSERT_TRUE(j.at("findings").is_array());
    EXPECT_TRUE(j["findings"].empty());
}

TEST(FindingsRender, TerminalSectionMostSevereFirstIn80Columns) {
    const auto r = with_findings();
    const auto text = terminal(r);
    for (const auto& l : lines_of(text)) EXPECT_LE(columns(l), 80u) << l;
    const auto lines = findings_lines(text);
    ASSERT_FALSE(lines.empty()) << text;
    EXPECT_NE(lines[0].find("(" + std::to_string(r.findings.size()) + ", most severe first)"),
              std::string::npos);
    // One tagged title line per finding, in the model's order.
    std::vector<std::string> tagged;
    for (const auto& l : lines)
        if (l.rfind("  [", 0) == 0) tagged.push_back(l);
    ASSERT_EQ(tagged.size(), r.findings.size()) << text;
    for (size_t i = 0; i < tagged.size(); ++i) {
        std::string tag = severity_name(r.findings[i].severity);
        for (char& ch : tag) ch = static_cast<char>(toupper(ch));
        EXPECT_EQ(tagged[i].rfind("  [" + tag + "] " + r.findings[i].id + ": ", 0), 0u) << tagged[i];
    }
    // Evidence with human units, recommendation wrapped under the title.
    EXPECT_NE(text.find("         evidence: "), std::string::npos);
    EXPECT_NE(text.find("stall share 35.0%"), std::string::npos) << text;
    EXPECT_NE(text.find("critical io 35.0 s"), std::string::npos) << text;
    EXPECT_NE(text.find("         fix: "), std::string::npos);
    EXPECT_NE(text.find("details in the JSON report"), std::string::npos);
    EXPECT_NE(text.find("prefetch_factor"), std::string::npos);
}

TEST(FindingsRender, TerminalColorKeepsWidth) {
    const auto text = terminal(with_findings(), /*color=*/true);
    EXPECT_NE(text.find("\x1b[1;31m[HIGH]\x1b[0m"), std::string::npos);
    for (auto l : findings_lines(text)) {
        for (size_t p; (p = l.find("\x1b[")) != std::string::npos;) l.erase(p, l.find('m', p) - p + 1);
        EXPECT_LE(columns(l), 80u) << l;
    }
}

TEST(FindingsRender, TerminalNoFindingsLine) {
    const auto lines = findings_lines(terminal(clean_report()));
    ASSERT_GE(lines.size(), 2u);
    EXPECT_EQ(lines[0], "Findings");
    EXPECT_EQ(lines[1].rfind("  no findings", 0), 0u);
}
