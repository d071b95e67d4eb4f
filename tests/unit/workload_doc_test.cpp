// docs/workload.md shows the `known` scenario's tables; tools/workload/known.h
// holds them, and the privileged test asserts iolens's report against the
// header. This test keeps the page equal to the header (on a mismatch it
// prints the markdown the page must hold), and the header consistent with
// itself.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>

#include "../../tools/workload/known.h"

namespace {

namespace known = wl::known;

std::string read_doc() {
    const auto path = std::filesystem::path(__FILE__).parent_path() / "../../docs/workload.md";
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string row(std::initializer_list<std::string> cells) {
    std::string s = "|";
    for (const auto& c : cells) s += c.empty() ? " |" : " " + c + " |";
    return s + "\n";
}

std::string n(uint64_t v) { return std::to_string(v); }

template <size_t N>
std::string counts_table(const char* who_header, const known::Count (&rows)[N], bool totals) {
    std::string s = row({who_header, "class", "calls", "errors", "bytes", "requested", "which"});
    s += "| --- | --- | ---: | ---: | ---: | ---: | --- |\n";
    for (const auto& c : rows)
        s += row({c.who, c.op, n(c.calls), n(c.errors), n(c.bytes), n(c.requested), c.syscalls});
    if (!totals) return s;
    for (const char* op : known::kClasses) {
        known::Count sum{};
        for (const auto& c : rows)
            if (std::string_view(c.op) == op) {
                sum.calls += c.calls;
                sum.errors += c.errors;
                sum.bytes += c.bytes;
                sum.requested += c.requested;
            }
        s += row({"**all**", op, n(sum.calls), n(sum.errors), n(sum.bytes), n(sum.requested), ""});
    }
    return s;
}

std::string processes_table() {
    std::string s = row({"role", "comm", "starts as"}) + "| --- | --- | --- |\n";
    for (const auto& p : known::kProcesses) s += row({p.role, std::string("`") + p.comm + "`", p.start});
    return s;
}

std::string buckets_table() {
    std::string s = row({"role", "class", "bucket", "calls", "from"}) + "| --- | --- | ---: | ---: | --- |\n";
    for (const auto& b : known::kSizeBuckets) s += row({b.who, b.op, n(b.lo), n(b.count), b.from});
    return s;
}

std::string access_line() {
    return std::string("Access pattern of `") + known::kDataName + "`: " + n(known::kDataSequential) +
           " sequential, " + n(known::kDataRandom) + " random.\n";
}

TEST(WorkloadDoc, KnownTablesAreTheHeaders) {
    const std::string doc = read_doc();
    ASSERT_FALSE(doc.empty()) << "cannot read docs/workload.md";
    for (const std::string& block :
         {processes_table(), counts_table("role", known::kProcessCounts, true),
          counts_table("file", known::kFileCounts, false), buckets_table(), access_line()})
        EXPECT_NE(doc.find(block), std::string::npos)
            << "docs/workload.md must hold this, from tools/workload/known.h:\n\n"
            << block;
}

template <size_t N>
known::Count sum_of(const known::Count (&rows)[N], std::string_view who, std::string_view op) {
    known::Count sum{};
    for (const auto& c : rows)
        if ((who.empty() || c.who == who) && c.op == op) {
            sum.calls += c.calls;
            sum.errors += c.errors;
            sum.bytes += c.bytes;
            sum.requested += c.requested;
        }
    return sum;
}

TEST(WorkloadKnownTable, EveryRowNamesARoleAndAClass) {
    auto is_class = [](std::string_view op) {
        for (const char* c : known::kClasses)
            if (op == c) return true;
        return false;
    };
    auto is_role = [](std::string_view who) {
        for (const auto& p : known::kProcesses)
            if (who == p.role) return true;
        return false;
    };
    for (const auto& c : known::kProcessCounts) {
        EXPECT_TRUE(is_role(c.who)) << c.who;
        EXPECT_TRUE(is_class(c.op)) << c.op;
        EXPECT_LE(c.errors, c.calls) << c.who << " " << c.op;
    }
    for (const auto& c : known::kFileCounts) EXPECT_TRUE(is_class(c.op)) << c.op;
    for (const auto& b : known::kSizeBuckets) {
        EXPECT_TRUE(is_role(b.who)) << b.who;
        EXPECT_TRUE(is_class(b.op)) << b.op;
    }
}

TEST(WorkloadKnownTable, HistogramsHoldEverySuccessfulCall) {
    std::map<std::pair<std::string, std::string>, uint64_t> bucketed;
    for (const auto& b : known::kSizeBuckets) bucketed[{b.who, b.op}] += b.count;
    for (const auto& [key, count] : bucketed) {
        const auto e = sum_of(known::kProcessCounts, key.first, key.second);
        EXPECT_EQ(count, e.calls - e.errors) << key.first << " " << key.second;
    }
}

TEST(WorkloadKnownTable, FileOnlyClassesAddUpTheSameByProcessAndByFile) {
    // read, write, seek, mmap and sync count only on regular files, and every
    // file the scenario touches is in the per-file table (readdir: on D).
    for (const char* op : {"read", "write", "seek", "mmap", "sync", "readdir"}) {
        const auto p = sum_of(known::kProcessCounts, "", op), f = sum_of(known::kFileCounts, "", op);
        EXPECT_EQ(p.calls, f.calls) << op;
        EXPECT_EQ(p.errors, f.errors) << op;
        EXPECT_EQ(p.bytes, f.bytes) << op;
        EXPECT_EQ(p.requested, f.requested) << op;
    }
}

}  // namespace
