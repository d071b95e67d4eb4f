// The terminal view: fits 80 columns, no colour unless asked, BCC-style histograms.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "text_lines.h"
#include "report/terminal_renderer.h"

using namespace iolens::model;
using iolens::report::render_log2_histogram;
using iolens::report::render_terminal;
using iolens::report::TerminalOptions;

using iolens::test::columns;
using iolens::test::lines_of;

namespace {

OpStats op(uint64_t calls, uint64_t bytes, uint64_t lat_lo, uint64_t lat_hi) {
    OpStats s;
    s.calls = calls;
    s.bytes = bytes;
    s.requested_bytes = bytes;
    s.time_ns = calls * lat_hi;
    s.latency_ns.add(lat_lo, calls - calls / 10);
    s.latency_ns.add(lat_hi, calls / 10 + 1);
    s.size_bytes.add(bytes / (calls ? calls : 1), calls);
    return s;
}

// Everything long and extreme at once: the renderer must still fit 80 columns.
Report stress_fixture() {
    Report r;
    auto& c = r.capture;
    c.command = {"python3",
                 "-m",
                 "torch.distributed.run",
                 "--nproc_per_node=8",
                 "/home/researcher/projects/very-long-project-name/src/training/entrypoints/"
                 "train_large_model.py",
                 "--data",
                 "/datasets/imagenet-21k/train shards/{000000..099999}.tar",
                 "--epochs",
                 "90"};
    c.duration_ns = 123'456'000'000'000ull;
    c.events = 18'446'744'073'709'551'615ull;
    c.lost_events = 1'234'567'890;
    c.lost_detail = {{"ring_buffer_full", 1'234'000'000},
                     {"no_thread_state", 567'890},
                     {"a_very_long_reason_name_that_goes_on_and_on", 0}};
    c.hostname = "gpu-node-0042.cluster.example-research-laboratory.internal.very.long.domain";
    c.kernel_release = "6.1.0-18-amd64-with-a-really-long-local-version-suffix";
    c.iolens_version = "0.1.0";
    c.exit_status = 137;
    c.partial = true;
    c.partial_reason =
        "the recorder was killed (SIGKILL) and the recording file ends in the middle "
        "of a RECORDS chunk at byte 123456789; 17 chunks were read intact";
    c.probes = {{"syscalls", "tp_btf/sys_enter", true, ""},
                {"pagecache", "tp/filemap/mm_filemap_add_to_page_cache", false,
                 "tracepoint filemap:mm_filemap_add_to_page_cache does not exist on this kernel; "
                 "page-cache misses are not reported"}};

    r.totals[IOLENS_OP_READ] = op(98'765'432'109ull, 1ull << 50, 400, 3'000'000'000ull);
    r.totals[IOLENS_OP_READ].errors = 12'345'678'901ull;
    r.totals[IOLENS_OP_READ].size_bytes = Histogram{};
    for (uint64_t b : {0ull, 100ull, 4096ull, 65536ull, 1ull << 20, 1ull << 34})
        r.totals[IOLENS_OP_READ].size_bytes.add(b, 1'000'000'000'000ull);
    r.totals[IOLENS_OP_WRITE] = op(5, 5000, 1000, 2000);
    r.totals[IOLENS_OP_OPEN] = op(3, 0, 5000, 9000);
    r.totals[IOLENS_OP_STAT] = op(1, 0, 100, 100);

    for (uint32_t pid : {4194304u, 17u, 2000u}) {
        ProcessStats p;
        p.info.pid = pid;
        p.info.comm = pid == 17 ? "pt_data_worker_" : "python3";
        p.ops[IOLENS_OP_READ] = op(pid * 1'000'000'000ull, pid * (1ull << 40), 400, 900);
        p.ops[IOLENS_OP_WRITE] = op(pid * 1'000'000ull, pid * (1ull << 30), 400, 900);
        r.processes.push_back(p);
    }
    std::string deep = "/datasets/imagenet-21k/train";
    for (int i = 0; i < 20; ++i) deep += "/nested-directory-level-" + std::to_string(i);
    const std::vector<std::string> paths = {
        deep + "/n01440764_10026.JPEG",
        "/data/caf\xc3\xa9/r\xc3\xa9sum\xc3\xa9-" + std::string(100, 'x') + ".bin",  // non-ASCII
        "/tmp/evil\x1b[2J\x1b[31mname\n.bin",  // control characters in a file name
        ".../truncated/walk/shard.tar",
        "<dev 259:3 ino 1234567890123>",
    };
    for (size_t i = 0; i < paths.size(); ++i) {
        FileStats f;
        f.path = paths[i];
        f.ops[IOLENS_OP_READ] = op(12'345'678'901ull, (5 - i) * (1ull << 40), 400, 900);
        f.sequential = 1000 * i;
        f.random = 3;
        r.files.push_back(f);
    }
    r.files_total = 9'876'543;
    r.files_omitted = r.files_total - r.files.size();
    return r;
}

std::string render(const Report& r, TerminalOptions o = {}) {
    std::ostringstream out;
    render_terminal(r, out, o);
    return out.str();
}

}  // namespace

TEST(TerminalRenderer, EveryLineFitsEightyColumns) {
    const std::string text = render(stress_fixture());
    for (const auto& l : lines_of(text)) EXPECT_LE(columns(l), 80u) << "[" << l << "]";
    EXPECT_GT(lines_of(text).size(), 30u);
}

TEST(TerminalRenderer, WiderTerminalsAreUsed) {
    const std::string text = render(stress_fixture(), {.width = 120});
    size_t widest = 0;
    for (const auto& l : lines_of(text)) {
        EXPECT_LE(columns(l), 120u) << l;
        widest = std::max(widest, columns(l));
    }
    EXPECT_GT(widest, 80u);  // long paths get the room
}

TEST(TerminalRenderer, NoEscapesWithoutColourAndSomeWithIt) {
    const std::string plain = render(stress_fixture(), {.color = false});
    EXPECT_EQ(plain.find('\x1b'), std::string::npos);
    // The file name's own escape sequence is shown escaped, never obeyed.
    EXPECT_NE(plain.find("\\x1b[2J"), std::string::npos);

    const std::string coloured = render(stress_fixture(), {.color = true});
    EXPECT_NE(coloured.find("\x1b["), std::string::npos);
    EXPECT_EQ(coloured.find("\x1b[2J"), std::string::npos);
}

TEST(TerminalRenderer, HeaderShowsTargetLossAndPartialBanner) {
    const std::string text = render(stress_fixture());
    const auto lines = lines_of(text);
    EXPECT_EQ(lines[0].rfind("iolens  python3 -m torch.distributed.run", 0), 0u) << lines[0];
    EXPECT_NE(text.find("1,234,567,890 lost"), std::string::npos);
    EXPECT_NE(text.find("!! PARTIAL REPORT: the recorder was killed"), std::string::npos);
    EXPECT_NE(text.find("warning: probe pagecache"), std::string::npos);
    EXPECT_EQ(text.find("warning: probe syscalls"), std::string::npos);  // attached
    // Arguments with spaces are quoted; the middle of a long command is elided.
    const std::string wide = render(stress_fixture(), {.width = 300});
    EXPECT_NE(wide.find(" --data '/datasets/imagenet-21k/train shards/{000000..099999}.tar' "),
              std::string::npos);
    EXPECT_NE(lines[0].find("..."), std::string::npos) << lines[0];

    Report pids;
    pids.capture.pids = {10, 20};
    EXPECT_EQ(lines_of(render(pids))[0], "iolens  pids 10, 20");
}

TEST(TerminalRenderer, TablesListOnlyActiveClassesAndTopN) {
    Report r = stress_fixture();
    const std::string text = render(r, {.top_n = 2});
    EXPECT_NE(text.find("  read "), std::string::npos);
    EXPECT_NE(text.find("  open "), std::string::npos);
    EXPECT_EQ(text.find("  sync "), std::string::npos);  // no calls
    EXPECT_EQ(text.find("  mmap "), std::string::npos);
    EXPECT_NE(text.find("(2 of 9,876,543)"), std::string::npos);
    EXPECT_NE(text.find("(2 of 3)"), std::string::npos);
    // Top processes by bytes: pid 4194304 moved the most, then 2000; 17 is cut.
    const size_t a = text.find("4194304"), b = text.find("   2000 ");
    EXPECT_NE(a, std::string::npos);
    EXPECT_NE(b, std::string::npos);
    EXPECT_LT(a, b);
    EXPECT_EQ(text.find("pt_data_worker_"), std::string::npos);
    // Long paths keep both ends.
    bool both_ends = false;
    for (const auto& line : lines_of(text))
        if (line.rfind("  /datasets/", 0) == 0 && line.find("...") != std::string::npos &&
            line.find("_10026.JPEG ") != std::string::npos)
            both_ends = true;
    EXPECT_TRUE(both_ends) << text;
}

TEST(TerminalRenderer, HistogramBlockLooksLikeBcc) {
    Histogram h;
    h.add(1, 3);
    h.add(5, 10);
    h.add(40);
    std::ostringstream out;
    render_log2_histogram(h, "bytes", out);
    const std::string expected =
        "     bytes               : count    distribution\n"
        "         0 -> 1          : 3        |************                            |\n"
        "         2 -> 3          : 0        |                                        |\n"
        "         4 -> 7          : 10       |****************************************|\n"
        "         8 -> 15         : 0        |                                        |\n"
        "        16 -> 31         : 0        |                                        |\n"
        "        32 -> 63         : 1        |****                                    |\n";
    EXPECT_EQ(out.str(), expected);
}

TEST(TerminalRenderer, HistogramBlockWidensForHugeValues) {
    Histogram h;
    h.add(UINT64_MAX, 123'456'789'012ull);
    h.add(1ull << 62);
    std::ostringstream out;
    render_log2_histogram(h, "nsecs", out);
    const auto lines = lines_of(out.str());
    ASSERT_EQ(lines.size(), 3u);
    for (const auto& l : lines) EXPECT_LE(l.size(), 80u) << l;
    EXPECT_NE(lines[2].find("-> 18446744073709551615"), std::string::npos) << lines[2];
}

TEST(TerminalRenderer, ReadHistogramsAreLabelled) {
    const std::string text = render(stress_fixture());
    EXPECT_NE(text.find("Read sizes"), std::string::npos);
    EXPECT_NE(text.find("Read latency"), std::string::npos);
    EXPECT_NE(text.find("nsecs"), std::string::npos);
}

TEST(TerminalRenderer, EmptyReportSaysSo) {
    Report r;
    const std::string text = render(r);
    EXPECT_NE(text.find("No traced I/O calls were recorded."), std::string::npos);
    EXPECT_EQ(text.find("Calls by class"), std::string::npos);
}
