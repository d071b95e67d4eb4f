// `iolens export --format perfetto` on the small known recording, decoded by
// protoc (Debian's protobuf-compiler) against tests/export/perfetto_subset.proto:
// every call a slice, the io_uring request on an async lane of its process,
// off-CPU waits, epochs, counters, the clock. tests/export/perfetto_check.py
// checks bigger recordings against the report and the Chrome export.
#include <gtest/gtest.h>

#include <cstdio>
#include <regex>

#include "export/exporter.h"
#include "export_test.h"

namespace iolens::test {
namespace {

size_t count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

TEST(ExportPerfetto, DecodesWithTracksSlicesAndCounters) {
    if (std::system("command -v protoc >/dev/null 2>&1") != 0) GTEST_SKIP() << "protoc is not installed";
    ExportDir dir;
    const auto known = write_known_recording(dir / "r.iolens");
    exports::ExportOptions o;
    o.output = dir / "t.pftrace";  // perfetto: the default format
    auto r = exports::export_recording(dir / "r.iolens", o);
    ASSERT_TRUE(r) << r.error().message;
    const std::string proto_dir =
        (std::filesystem::path(IOLENS_TEST_DATA_DIR) / ".." / "export").lexically_normal().string();
    const std::string cmd = "protoc --decode=perfetto.protos.Trace -I '" + proto_dir + "' '" + proto_dir +
                            "/perfetto_subset.proto' < '" + (dir / "t.pftrace") + "' > '" + (dir / "t.txt") +
                            "' 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << slurp(dir / "t.txt");
    const std::string text = slurp(dir / "t.txt");
    EXPECT_FALSE(std::regex_search(text, std::regex("\\n *[0-9]+: "))) << "a field the subset lacks";
    EXPECT_EQ(count(text, "packet {"), r->events);
    // Slices: the calls, the request, 2 epochs on each of 2 ranks, the off-CPU waits.
    const size_t slices = known.posix_calls + known.async_requests + 4 + known.offcpu;
    EXPECT_EQ(count(text, "type: TYPE_SLICE_BEGIN"), slices);
    EXPECT_EQ(count(text, "type: TYPE_SLICE_END"), slices);
    EXPECT_EQ(count(text, "type: TYPE_INSTANT"), 4u);  // the markers
    EXPECT_GT(count(text, "type: TYPE_COUNTER"), 0u);
    // Tracks: 3 processes (100, 101, 200), their threads, 2 ranks, one async lane.
    EXPECT_EQ(count(text, "    process {"), 3u);
    EXPECT_EQ(count(text, "    thread {"), 3u);
    EXPECT_EQ(count(text, "name: \"rank 0\""), 1u);
    EXPECT_EQ(count(text, "name: \"rank 1\""), 1u);
    EXPECT_EQ(count(text, "name: \"async requests 1\""), 1u);
    EXPECT_EQ(count(text, "name: \"io_uring read\""), 1u);  // interned once on its sequence
    EXPECT_EQ(count(text, "name: \"main thread off-CPU\""), 1u);
    EXPECT_EQ(count(text, "name: \"block sda\""), 1u);
    EXPECT_NE(text.find("str: \"/data/train/b \\\"quoted\\\".bin\""), std::string::npos) << text;
    EXPECT_NE(text.find("clock_id: 3\n      timestamp: " + std::to_string(kT0)), std::string::npos);
    EXPECT_NE(text.find("clock_id: 1\n      timestamp: " + std::to_string(kUnix0)), std::string::npos);
}

}  // namespace
}  // namespace iolens::test
