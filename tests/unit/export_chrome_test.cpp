// `iolens export --format chrome` on a small recording with known events:
// the JSON parses, every call is a slice with its arguments, times are on
// the realtime clock, ranks, epochs, off-CPU waits and counters are there;
// and the rules every export follows (output-file safety, partial input).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "export/exporter.h"
#include "export/trace.h"
#include "export_test.h"
#include "model/replay.h"

namespace iolens::test {
namespace {

using nlohmann::json;

struct Exported {
    exports::ExportOutcome outcome;
    json trace;
};

Exported export_chrome(const std::string& in, const std::string& out) {
    exports::ExportOptions o;
    o.format = exports::Format::Chrome;
    o.output = out;
    auto r = exports::export_recording(in, o);
    EXPECT_TRUE(r) << (r ? "" : r.error().message);
    Exported e;
    if (r) e.outcome = *r;
    e.trace = json::parse(slurp(out), nullptr, false);
    EXPECT_FALSE(e.trace.is_discarded()) << "not JSON: " << out;
    return e;
}

std::vector<json> events(const json& trace, const std::string& ph) {
    std::vector<json> out;
    for (const auto& e : trace["traceEvents"])
        if (e["ph"] == ph) out.push_back(e);
    return out;
}

TEST(ExportChrome, EveryCallIsASliceWithItsArguments) {
    ExportDir dir;
    const auto known = write_known_recording(dir / "r.iolens");
    auto e = export_chrome(dir / "r.iolens", dir / "t.json");
    EXPECT_FALSE(e.outcome.partial);
    uint64_t calls = 0;
    std::map<std::string, uint64_t> by_name;
    for (const auto& x : events(e.trace, "X"))
        if (x["cat"] == "posix") {
            ++calls;
            by_name[x["name"]]++;
            EXPECT_TRUE(x.contains("ts") && x.contains("dur") && x.contains("pid") && x.contains("tid")) << x;
        }
    EXPECT_EQ(calls, known.posix_calls);
    EXPECT_EQ(e.outcome.events, e.trace["traceEvents"].size());
    // The first read: realtime microseconds, nanoseconds as decimals.
    bool found = false;
    for (const auto& x : events(e.trace, "X")) {
        if (x["cat"] != "posix" || x["pid"] != 101 || x["name"] != "read" || x["args"]["offset"] != 0)
            continue;
        found = true;
        const uint64_t start = kT0 + 3 * kMs + 1000;
        EXPECT_DOUBLE_EQ(x["ts"].get<double>(), static_cast<double>(kUnix0 + start - kT0) / 1000.0);
        EXPECT_DOUBLE_EQ(x["dur"].get<double>(), 50.0);
        EXPECT_EQ(x["args"]["file"], "/data/train/a.bin");
        EXPECT_EQ(x["args"]["ret"], 65536);
        EXPECT_EQ(x["args"]["cache_miss_bytes"], 65536);
        EXPECT_EQ(x["args"]["cache_hit_bytes"], 0);
        EXPECT_EQ(x["args"]["rank"], 0);
        EXPECT_EQ(x["args"]["epoch"], 1);
        break;
    }
    EXPECT_TRUE(found);
    // A file name with quotes survives; the stat without a file has no "file".
    std::set<std::string> files;
    for (const auto& x : events(e.trace, "X"))
        if (x["args"].contains("file")) files.insert(x["args"]["file"]);
    EXPECT_TRUE(files.count("/data/train/b \"quoted\".bin"));
    for (const auto& x : events(e.trace, "X"))
        if (x["name"] == "stat") EXPECT_FALSE(x["args"].contains("file"));
}

TEST(ExportChrome, AsyncRequestsAreAsyncSlices) {
    ExportDir dir;
    const auto known = write_known_recording(dir / "r.iolens");
    auto e = export_chrome(dir / "r.iolens", dir / "t.json");
    const auto b = events(e.trace, "b"), en = events(e.trace, "e");
    ASSERT_EQ(b.size(), known.async_requests);
    ASSERT_EQ(en.size(), known.async_requests);
    EXPECT_EQ(b[0]["id"], en[0]["id"]);
    EXPECT_EQ(b[0]["cat"], "io_uring");
    EXPECT_EQ(b[0]["args"]["offset"], 65536);
    EXPECT_NEAR(en[0]["ts"].get<double>() - b[0]["ts"].get<double>(), 70.0, 1e-3);
}

TEST(ExportChrome, RanksEpochsOffCpuAndCounters) {
    ExportDir dir;
    const auto known = write_known_recording(dir / "r.iolens");
    auto e = export_chrome(dir / "r.iolens", dir / "t.json");
    std::map<uint64_t, std::string> process_names;
    for (const auto& m : events(e.trace, "M"))
        if (m["name"] == "process_name") process_names[m["pid"]] = m["args"]["name"];
    EXPECT_EQ(process_names[101], "rank 0: python (101)");  // the worker is its parent's rank
    EXPECT_EQ(process_names[200], "rank 1: python (200)");
    // Epoch slices on each rank's track, as the report has them.
    auto report = model::load_recording(dir / "r.iolens");
    ASSERT_TRUE(report);
    ASSERT_EQ(report->epochs.size(), 2u);
    std::map<std::string, int> epochs_per_rank;
    for (const auto& x : events(e.trace, "X"))
        if (x["cat"] == "epoch") epochs_per_rank[process_names[x["pid"]]]++;
    EXPECT_EQ(epochs_per_rank["rank 0"], 2);
    EXPECT_EQ(epochs_per_rank["rank 1"], 2);
    uint64_t offcpu = 0;
    for (const auto& x : events(e.trace, "X"))
        if (x["cat"] == "sched") {
            ++offcpu;
            EXPECT_EQ(x["name"], "off-CPU (D)");
            EXPECT_EQ(x["tid"], 100);
        }
    EXPECT_EQ(offcpu, known.offcpu);
    std::set<std::string> counters;
    for (const auto& c : events(e.trace, "C"))
        counters.insert(process_names[c["pid"]] + "/" + c["name"].get<std::string>());
    EXPECT_TRUE(counters.count("rank 0/page cache hit %")) << json(counters);
    EXPECT_TRUE(counters.count("block sda/queue depth")) << json(counters);
    EXPECT_TRUE(counters.count("block sda/MiB/s")) << json(counters);
    // Markers: instants on the rank tracks.
    EXPECT_EQ(events(e.trace, "i").size(), 4u);
}

TEST(ExportChrome, CallsPerEpochAreTheReportsCalls) {
    ExportDir dir;
    write_known_recording(dir / "r.iolens");
    auto e = export_chrome(dir / "r.iolens", dir / "t.json");
    auto report = model::load_recording(dir / "r.iolens");
    ASSERT_TRUE(report);
    std::map<int, uint64_t> calls, bytes;
    for (const auto& x : e.trace["traceEvents"]) {
        if ((x["ph"] != "X" || x["cat"] != "posix") && x["ph"] != "b") continue;
        if (!x["args"].contains("epoch")) continue;
        const int k = x["args"]["epoch"];
        calls[k]++;
        if (x["args"]["ret"] > 0 && (x["name"] == "read" || x["name"] == "write" || x["ph"] == "b"))
            bytes[k] += x["args"]["ret"].get<uint64_t>();
    }
    for (const auto& ep : report->epochs) {
        uint64_t c = 0;
        for (const auto& op : ep.ops) c += op.calls;
        EXPECT_EQ(calls[static_cast<int>(ep.index)], c) << "epoch " << ep.index;
        EXPECT_EQ(bytes[static_cast<int>(ep.index)], model::rw_bytes(ep.ops)) << "epoch " << ep.index;
    }
}

TEST(ExportOutput, AnExistingFileIsNotReplacedWithoutForce) {
    ExportDir dir;
    write_known_recording(dir / "r.iolens");
    { std::ofstream(dir / "t.json") << "keep me"; }
    exports::ExportOptions o;
    o.format = exports::Format::Chrome;
    o.output = dir / "t.json";
    auto r = exports::export_recording(dir / "r.iolens", o);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("-f"), std::string::npos) << r.error().message;
    EXPECT_EQ(slurp(dir / "t.json"), "keep me");
    o.force = true;
    ASSERT_TRUE(exports::export_recording(dir / "r.iolens", o));
    EXPECT_NE(slurp(dir / "t.json"), "keep me");
    struct stat st {};
    ASSERT_EQ(::stat((dir / "t.json").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    // Never the recording itself.
    o.output = dir / "r.iolens";
    auto same = exports::export_recording(dir / "r.iolens", o);
    ASSERT_FALSE(same);
    EXPECT_NE(same.error().message.find("same file"), std::string::npos) << same.error().message;
}

TEST(ExportOutput, APartialRecordingIsExportedAsFarAsItGoes) {
    ExportDir dir;
    const auto known = write_known_recording(dir / "r.iolens", /*complete=*/false);
    auto e = export_chrome(dir / "r.iolens", dir / "t.json");
    EXPECT_TRUE(e.outcome.partial);
    EXPECT_FALSE(e.outcome.partial_reason.empty());
    uint64_t calls = 0;
    for (const auto& x : events(e.trace, "X")) calls += x["cat"] == "posix";
    EXPECT_EQ(calls, known.posix_calls);
    // Not a recording at all: an error, and no output file.
    { std::ofstream(dir / "junk") << "not a recording"; }
    exports::ExportOptions o;
    o.format = exports::Format::Chrome;
    o.output = dir / "junk.json";
    EXPECT_FALSE(exports::export_recording(dir / "junk", o));
    EXPECT_FALSE(std::filesystem::exists(dir / "junk.json"));
}

TEST(ExportOutput, GzipByNameIsOneMember) {
    ExportDir dir;
    write_known_recording(dir / "r.iolens");
    exports::ExportOptions o;
    o.format = exports::Format::Chrome;
    o.output = dir / "t.json.gz";
    auto r = exports::export_recording(dir / "r.iolens", o);
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->gzip);
    const std::string gz = slurp(dir / "t.json.gz");
    ASSERT_GT(gz.size(), 18u);
    EXPECT_EQ(static_cast<unsigned char>(gz[0]), 0x1f);
    EXPECT_EQ(static_cast<unsigned char>(gz[1]), 0x8b);
    EXPECT_EQ(r->bytes, gz.size());
    // gzip -l style check with the real tool: one member that decompresses to the JSON.
    const std::string cmd = "gzip -dc '" + (dir / "t.json.gz") + "' > '" + (dir / "t.json") + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    EXPECT_EQ(slurp(dir / "t.json").size(), r->raw_bytes);
    EXPECT_FALSE(json::parse(slurp(dir / "t.json"), nullptr, false).is_discarded());
}

TEST(ExportJsonText, EscapesAndReplacesInvalidUtf8) {
    std::string s;
    static constexpr char kIn[] = "a\"b\\c\n\x01 \xc3\xa9 \xff end";
    exports::append_json_string(s, std::string_view(kIn, sizeof kIn - 1));
    EXPECT_EQ(s, "a\\\"b\\\\c\\u000a\\u0001 \xc3\xa9 \xef\xbf\xbd end");
}

}  // namespace
}  // namespace iolens::test
