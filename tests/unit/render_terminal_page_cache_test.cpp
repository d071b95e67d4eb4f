// The terminal's "Page cache" and "Block devices" sections: 80 columns, n/a
// (never 0) when the probes were not live, queue and service side by side.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "text_lines.h"
#include "model/report_builder.h"
#include "model_records.h"
#include "report/terminal_renderer.h"

using namespace iolens::model;
using iolens::report::render_terminal;
using iolens::report::TerminalOptions;
using iolens::test::kDiskDev;
using iolens::test::Records;

using iolens::test::columns;
using iolens::test::lines_of;

namespace {

CaptureInfo capture(bool pagecache, bool blocking, bool block) {
    CaptureInfo c;
    c.command = {"python3", "train.py"};
    c.probes = {{"syscalls", "tp_btf/sys_enter", true, ""},
                {"pagecache", "tp/filemap", pagecache, pagecache ? "" : "filemap tracepoints missing"},
                {"blocking", "tp_btf/sched_switch", blocking, ""},
                {"block", "tp/block", block, ""}};
    c.devices = {{kDiskDev, "vda"}};
    return c;
}

// Extreme values everywhere: huge counts, long comm and paths, times from
// nanoseconds to hours, many devices.
Report stress(const CaptureInfo& cap) {
    Records s;
    for (uint32_t pid = 1; pid <= 12; ++pid) {
        s.syscall({.pid = pid * 100000,
                   .ret = 1 << 30,
                   .ino = pid,
                   .cache_in = uint64_t{pid} << 33,
                   .readahead = uint64_t{pid} << 32,
                   .blocked = uint64_t{pid} * 3'600'000'000'000ull});
        s.pagecache(IOLENS_PC_FAULT_IN, IOLENS_PCF_MAJOR_FAULT, pid * 100000, pid, 1ull << 40);
        s.pagecache(IOLENS_PC_EVICT, IOLENS_PCF_UNREFERENCED, pid * 100000, pid, 1ull << 41);
    }
    uint64_t sector = 0;
    for (uint32_t i = 0; i < 400; ++i) {
        const uint32_t dev = i % 13 == 0 ? ((8u + i) << 20) | 123456 : kDiskDev;
        s.block({.op = static_cast<uint8_t>(i % 3),
                 .flags = i % 2 ? uint8_t{IOLENS_BLKF_QUEUED} : uint8_t{0},
                 .depth = static_cast<uint16_t>(i * 97),
                 .dev = dev,
                 .pid = (i % 12 + 1) * 100000,
                 .bytes = 512u << (i % 12),
                 .sector = sector,
                 .queue_ns = 1ull << (i % 44),
                 .service_ns = 1ull << (i % 50)});
        sector += i % 4 ? (512u << (i % 12)) / 512 : 7;
    }
    ReportBuilder b;
    b.set_capture(cap);
    for (int i = 0; i < 1000; ++i) b.add_process({.pid = 100000, .comm = "pt_data_worker_with_a_long_name"});
    EXPECT_TRUE(b.add_records(s.span()).ok());
    Report r = b.finish();
    for (auto& f : r.files)
        f.path = "/datasets/imagenet-21k/train/nested/deeper/and-deeper/shard-" + std::to_string(f.ino) +
                 "-with-a-very-long-name.tar";
    return r;
}

std::string render(const Report& r, TerminalOptions o = {}) {
    std::ostringstream out;
    render_terminal(r, out, o);
    return out.str();
}

}  // namespace

TEST(TerminalPageCache, EveryLineFitsEightyColumnsWithTheNewSections) {
    for (bool blocking : {true, false}) {
        const std::string text = render(stress(capture(true, blocking, true)));
        EXPECT_NE(text.find("Page cache"), std::string::npos);
        EXPECT_NE(text.find("Block devices"), std::string::npos);
        for (const auto& l : lines_of(text)) EXPECT_LE(columns(l), 80u) << "[" << l << "]";
    }
    const std::string wide = render(stress(capture(true, true, true)), {.width = 132});
    for (const auto& l : lines_of(wide)) EXPECT_LE(columns(l), 132u) << "[" << l << "]";
}

TEST(TerminalPageCache, ShowsTheFiguresAndTheTopTables) {
    Records s;
    s.syscall({.pid = 100, .ret = 4096, .ino = 7, .cache_in = 4096, .blocked = 2'000'000});
    s.syscall({.pid = 100, .ret = 12288, .ino = 7});
    s.pagecache(IOLENS_PC_FAULT_IN, IOLENS_PCF_MAJOR_FAULT, 100, 7, 8192);
    ReportBuilder b;
    b.set_capture(capture(true, true, false));
    b.add_process({.pid = 100, .comm = "python3"});
    ASSERT_TRUE(b.add_records(s.span()).ok());
    const std::string text = render(b.finish());
    EXPECT_NE(text.find("hit ratio                50.0%"), std::string::npos) << text;
    EXPECT_NE(text.find("read from cache       12.0 KiB"), std::string::npos) << text;
    EXPECT_NE(text.find("major faults                 1"), std::string::npos) << text;
    EXPECT_NE(text.find("blocked in reads       2.00 ms"), std::string::npos) << text;
    EXPECT_NE(text.find("    100 python3          50.0%  4.00 KiB"), std::string::npos) << text;
    EXPECT_NE(text.find("<dev 253:1 ino 7>"), std::string::npos) << text;
}

TEST(TerminalPageCache, NotAvailableSaysWhyAndShowsNoZeros) {
    const std::string text = render(stress(capture(false, false, false)));
    EXPECT_NE(text.find("  n/a: probe pagecache not attached: filemap tracepoints missing"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("  n/a: probe block not attached"), std::string::npos) << text;
    EXPECT_EQ(text.find("hit ratio"), std::string::npos);
    EXPECT_EQ(text.find("p50 svc"), std::string::npos);

    Report old = stress(CaptureInfo{});  // a capture that never had the families
    EXPECT_NE(render(old).find("n/a: probe pagecache was not part of this capture"), std::string::npos);

    const std::string no_blocking = render(stress(capture(true, false, true)));
    EXPECT_NE(no_blocking.find("blocked in reads           n/a"), std::string::npos) << no_blocking;
}

TEST(TerminalBlock, TotalsThenQueueAndServiceSideBySide) {
    Records s;
    for (uint64_t i = 0; i < 10; ++i)
        s.block({.op = IOLENS_BLK_READ,
                 .flags = IOLENS_BLKF_QUEUED,
                 .depth = 3,
                 .pid = 100,
                 .bytes = 4096,
                 .sector = i * 8,
                 .queue_ns = 3000,
                 .service_ns = 150'000});
    s.block({.op = IOLENS_BLK_WRITE, .pid = 0, .bytes = 8192, .sector = 9000, .service_ns = 40'000});
    ReportBuilder b;
    b.set_capture(capture(false, false, true));
    b.add_process({.pid = 100, .comm = "python3"});
    ASSERT_TRUE(b.add_records(s.span()).ok());
    const std::string text = render(b.finish());
    const auto lines = lines_of(text);

    EXPECT_NE(text.find("  vda         read           10   40.0 KiB     90/10      3    150 us    150 us"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("              write           1   8.00 KiB     0/100      1   40.0 us   40.0 us"),
              std::string::npos)
        << text;
    // Queue and service titles on one line, and histogram rows with two bars.
    bool titles = false;
    size_t double_rows = 0;
    for (const auto& l : lines) {
        titles |= l.find("queue time") != std::string::npos && l.find("service time") != std::string::npos;
        size_t bars = 0;
        for (char ch : l) bars += ch == '|';
        if (bars == 4 && l.find(" : ") != l.rfind(" : ")) ++double_rows;
    }
    EXPECT_TRUE(titles) << text;
    EXPECT_GE(double_rows, 1u) << text;
    // One time band per row in both columns: 3 us queued, 150 us in service.
    EXPECT_NE(text.find("  2.05 us -> 4.10 us : 10    |*********|  2.05 us -> 4.10 us : 0 "),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("131 us -> 262 us  : 10"), std::string::npos) << text;  // 150 us service
    EXPECT_NE(text.find("no request went through an I/O"), std::string::npos);  // the write
    EXPECT_NE(text.find("request size"), std::string::npos);
    EXPECT_NE(text.find("vda write (1 request)"), std::string::npos);
    // Per-process share, and what no tracked process submitted.
    EXPECT_NE(text.find("    100 python3                       10    40.0 KiB         0 B"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("      - (others, kernel)               1         0 B    8.00 KiB"),
              std::string::npos)
        << text;
    for (const auto& l : lines) EXPECT_LE(columns(l), 80u) << l;
}

TEST(TerminalBlock, NoColourUnlessAsked) {
    const Report r = stress(capture(true, true, true));
    EXPECT_EQ(render(r).find('\x1b'), std::string::npos);
    EXPECT_NE(render(r, {.color = true}).find("\x1b["), std::string::npos);
}
