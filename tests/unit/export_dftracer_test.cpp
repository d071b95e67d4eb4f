// `iolens export --format dftracer` on the small known recording: DFTracer's
// line format (a "[" line, one object per line, a "]" line), the names
// DFAnalyzer sizes, file hashes with their FH lines, integer realtime
// microseconds. tests/export/dftracer_check.py checks bigger recordings
// against DFAnalyzer's loader and with Dask.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "export/exporter.h"
#include "export/trace.h"
#include "export_test.h"

namespace iolens::test {
namespace {

using nlohmann::json;

std::vector<std::string> split_lines(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    for (std::string line; std::getline(ss, line);) out.push_back(line);
    return out;
}

TEST(ExportDfTracer, LinesNamesHashesAndTimes) {
    ExportDir dir;
    const auto known = write_known_recording(dir / "r.iolens");
    exports::ExportOptions o;
    o.format = exports::Format::DfTracer;
    o.output = dir / "t.pfw";
    ASSERT_TRUE(exports::export_recording(dir / "r.iolens", o));
    const auto lines = split_lines(slurp(dir / "t.pfw"));
    ASSERT_GE(lines.size(), 3u);
    EXPECT_EQ(lines.front(), "[");
    EXPECT_EQ(lines.back(), "]");
    std::map<uint64_t, std::string> fh;
    uint64_t hh = 0, posix = 0, id = 0;
    std::map<std::string, uint64_t> names;
    for (size_t i = 1; i + 1 < lines.size(); ++i) {
        const json e = json::parse(lines[i]);
        EXPECT_EQ(e["id"], ++id);
        if (e["ph"] == "M") {
            if (e["name"] == "HH") hh = e["args"]["value"];
            if (e["name"] == "FH") fh[e["args"]["value"]] = e["args"]["name"];
            continue;
        }
        EXPECT_EQ(e["args"]["hhash"], hh);
        ASSERT_TRUE(e["ts"].is_number_unsigned() && e["dur"].is_number_unsigned()) << e;
        if (e["cat"] != "POSIX") continue;
        ++posix;
        names[e["name"]]++;
        if (e["args"].contains("fhash"))
            EXPECT_TRUE(fh.count(e["args"]["fhash"])) << "FH after first use: " << e;
        if (e["args"]["syscall"] == "io_uring_enter") {
            EXPECT_EQ(e["name"], "pread");  // sized by DFAnalyzer, like the report counts it
            EXPECT_EQ(e["args"]["path"], "io_uring");
            EXPECT_EQ(e["args"]["ret"], 131072);
            EXPECT_EQ(e["args"]["offset"], 65536);
            EXPECT_EQ(e["dur"], 70);
        }
        if (e["name"] == "stat") EXPECT_FALSE(e["args"].contains("fhash"));
    }
    EXPECT_EQ(posix, known.posix_calls + known.async_requests);
    // Synthetic records carry syscall number 0: named by their class.
    EXPECT_EQ(names["open64"], 4u);
    EXPECT_EQ(names["read"], 8u);
    EXPECT_EQ(names["close"], 4u);
    EXPECT_EQ(names["write"], 1u);
    std::set<std::string> paths;
    for (const auto& [h, p] : fh) paths.insert(p);
    EXPECT_EQ(paths,
              (std::set<std::string>{"/data/train/a.bin", "/data/train/b \"quoted\".bin", "/ckpt/model.pt"}));
    EXPECT_EQ(hh, exports::fnv1a64("node017"));
}

}  // namespace
}  // namespace iolens::test
