// The kernel counters are defined once (IOLENS_COUNTERS in include/iolens/abi.h):
// the enum, the names, the loss list and the docs must all agree with it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "probes/counters.h"
#include "probes/probe_set.h"

namespace iolens::probes {
namespace {

std::string read_doc(const std::string& name) {
    // tests/data need not exist: go up lexically.
    const auto path = std::filesystem::path(IOLENS_TEST_DATA_DIR).parent_path().parent_path() / "docs" / name;
    std::ifstream in(path);
    EXPECT_TRUE(in) << path << " missing";
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Rows "| `name` | meaning |" of the markdown table whose header line is `header`.
std::map<std::string, std::string> doc_table(const std::string& doc, const std::string& header) {
    std::map<std::string, std::string> rows;
    std::istringstream in(doc.substr(std::min(doc.find(header + "\n"), doc.size())));
    std::string line;
    std::getline(in, line);  // the header
    std::getline(in, line);  // | --- | --- |
    const std::regex row(R"(^\| `([a-z_]+)` \| (.*) \|$)");
    std::smatch m;
    while (std::getline(in, line) && std::regex_match(line, m, row)) rows[m[1]] = m[2];
    return rows;
}

// The `names` in the last cell of the schema's row for `key`.
std::set<std::string> schema_names(const std::string& doc, const std::string& key) {
    std::set<std::string> names;
    const auto at = doc.find("| `" + key + "` |");
    if (at == std::string::npos) return names;
    std::string line = doc.substr(at, doc.find('\n', at) - at);
    line = line.substr(line.rfind(" | ") + 3);
    const std::regex name("`([a-z_]+)`");
    for (std::sregex_iterator it(line.begin(), line.end(), name), end; it != end; ++it)
        names.insert((*it)[1]);
    return names;
}

TEST(Counters, ValuesAreTheSlotsInOrder) {
    ASSERT_EQ(std::size(kCounters), static_cast<size_t>(IOLENS_CNT_COUNT));
    std::set<std::string> names;
    for (size_t i = 0; i < std::size(kCounters); i++) {
        EXPECT_EQ(kCounters[i].id, static_cast<int>(i)) << kCounters[i].name;
        EXPECT_TRUE(names.insert(kCounters[i].name).second) << "duplicate name " << kCounters[i].name;
        EXPECT_STREQ(counter_name(kCounters[i].id), kCounters[i].name);
    }
    EXPECT_STREQ(counter_name(IOLENS_CNT_COUNT), "unknown");
}

TEST(Counters, NamesInRecordingsNeverChange) {
    // Recordings on disk carry these names: the table may only grow.
    const char* on_disk[] = {"records",          "ring_buffer_full", "no_thread_state",
                             "pid_above_bitmap", "path_truncated",   "block_issued_before_start",
                             "inode_watch_full", "ring_bytes"};
    for (size_t i = 0; i < std::size(on_disk); i++)
        EXPECT_STREQ(counter_name(static_cast<int>(i)), on_disk[i]);
}

TEST(Counters, LossListIsTheTablesLosses) {
    std::vector<std::string> expected;
    for (const auto& c : kCounters)
        if (c.loss) expected.push_back(c.name);
    EXPECT_EQ(std::vector<std::string>(kLossCounterNames.begin(), kLossCounterNames.end()), expected);
}

TEST(Counters, CaptureDocTablesAreTheTable) {
    const std::string doc = read_doc("capture.md");
    std::map<std::string, std::string> losses, others;
    for (const auto& c : kCounters) (c.loss ? losses : others)[c.name] = c.meaning;
    losses["undelivered"] =
        doc_table(doc, "| reason | meaning |")["undelivered"];  // the recorder's, not the kernel's
    EXPECT_FALSE(losses["undelivered"].empty()) << "docs/capture.md: no `undelivered` row";
    EXPECT_EQ(doc_table(doc, "| reason | meaning |"), losses);
    EXPECT_EQ(doc_table(doc, "| counter | meaning |"), others);
}

TEST(Counters, ReportSchemaListsEveryName) {
    const std::string doc = read_doc("report-schema.md");
    std::set<std::string> all, losses = {"undelivered"};
    for (const auto& c : kCounters) {
        all.insert(c.name);
        if (c.loss) losses.insert(c.name);
    }
    EXPECT_EQ(schema_names(doc, "kernel_counters"), all);
    EXPECT_EQ(schema_names(doc, "lost_detail"), losses);
}

}  // namespace
}  // namespace iolens::probes
