// The JSON report honours the documented contract (docs/report-schema.md).
#include <gtest/gtest.h>

#include "report/json_renderer.h"

using namespace iolens::model;
using iolens::report::report_to_json;
using iolens::report::report_to_json_text;
using nlohmann::json;

namespace {

const char* kOps[] = {"read", "write", "open", "close", "stat", "seek", "mmap", "readdir", "sync"};

Report fixture() {
    Report r;
    r.capture.command = {"python3", "train.py"};
    r.capture.pids = {100};
    r.capture.duration_ns = 5'000'000'000;
    r.capture.events = 10;
    r.capture.lost_events = 3;
    r.capture.lost_detail = {{"ring_buffer_full", 3}};
    r.capture.probes = {{"syscalls", "tp_btf/sys_enter", true, ""},
                        {"block", "tp/block/block_io_start", false, "missing"}};
    r.capture.hostname = "h";
    r.capture.kernel_release = "6.1.0";
    auto& rd = r.totals[IOLENS_OP_READ];
    rd.calls = 4;
    rd.errors = 1;
    rd.bytes = 8192 + 100;
    rd.requested_bytes = 4 * 4096;
    rd.time_ns = 4000;
    for (uint64_t ns : {500, 700, 800, 2000}) rd.latency_ns.add(ns);
    for (uint64_t b : {4096, 4096, 100}) rd.size_bytes.add(b);
    ProcessStats p;
    p.info.pid = 100;
    p.info.comm = "python3";
    p.info.cmdline = {"python3", "train.py"};
    p.ops[IOLENS_OP_READ] = rd;
    r.processes.push_back(p);
    FileStats f;
    f.path = "/data/shard-0001.tar";
    f.dev = (8u << 20) | 1;
    f.ino = 1234;
    f.size = 1 << 30;
    f.ops[IOLENS_OP_READ] = rd;
    f.sequential = 2;
    f.random = 1;
    r.files.push_back(f);
    r.files_total = 5;
    r.files_omitted = 4;
    return r;
}

void expect_hist(const json& h, const std::string& where) {
    ASSERT_TRUE(h.is_object()) << where;
    ASSERT_TRUE(h.at("buckets").is_array()) << where;
    for (const auto& b : h.at("buckets")) {
        EXPECT_TRUE(b.at("lo").is_number_unsigned()) << where;
        EXPECT_TRUE(b.at("hi").is_number_unsigned()) << where;
        EXPECT_TRUE(b.at("count").is_number_unsigned()) << where;
        EXPECT_LT(b.at("lo").get<uint64_t>(), b.at("hi").get<uint64_t>()) << where;
        EXPECT_GT(b.at("count").get<uint64_t>(), 0u) << where << ": only non-empty buckets";
    }
    for (const char* k : {"p50", "p99", "max"}) EXPECT_TRUE(h.at(k).is_number_unsigned()) << where << k;
}

void expect_op_table(const json& ops, const std::string& where) {
    ASSERT_TRUE(ops.is_object()) << where;
    for (const char* op : kOps) {
        ASSERT_TRUE(ops.contains(op)) << where << "." << op;
        const json& s = ops.at(op);
        for (const char* k : {"calls", "errors", "bytes", "requested_bytes", "time_ns"})
            EXPECT_TRUE(s.at(k).is_number_unsigned()) << where << "." << op << "." << k;
        expect_hist(s.at("latency_ns"), where + "." + op + ".latency_ns");
        expect_hist(s.at("size_bytes"), where + "." + op + ".size_bytes");
    }
}

}  // namespace

TEST(JsonRenderer, TopLevelContract) {
    const json j = report_to_json(fixture());
    EXPECT_EQ(j.at("schema"), "iolens.report");
    EXPECT_EQ(j.at("version"), 1);
    EXPECT_TRUE(j.at("files_total").is_number_unsigned());
    EXPECT_TRUE(j.at("files_omitted").is_number_unsigned());
    EXPECT_EQ(j.at("files_total"), 5);
    EXPECT_EQ(j.at("files_omitted"), 4);
    expect_op_table(j.at("totals"), "totals");
}

TEST(JsonRenderer, CaptureContract) {
    const json c = report_to_json(fixture()).at("capture");
    EXPECT_TRUE(c.at("command").is_array());
    EXPECT_EQ(c.at("command")[0], "python3");
    EXPECT_TRUE(c.at("pids").is_array());
    EXPECT_TRUE(c.at("pids")[0].is_number_unsigned());
    for (const char* k : {"start_unix_ns", "duration_ns", "events", "lost_events"})
        EXPECT_TRUE(c.at(k).is_number_unsigned()) << k;
    EXPECT_TRUE(c.at("lost_detail").is_object());
    EXPECT_EQ(c.at("lost_detail").at("ring_buffer_full"), 3);
    EXPECT_TRUE(c.at("partial").is_boolean());
    EXPECT_TRUE(c.at("partial_reason").is_string());
    EXPECT_TRUE(c.at("hostname").is_string());
    EXPECT_TRUE(c.at("kernel_release").is_string());
    EXPECT_TRUE(c.at("exit_status").is_null());  // no launched command exit recorded
    ASSERT_TRUE(c.at("probes").is_array());
    ASSERT_EQ(c.at("probes").size(), 2u);
    const json& p = c.at("probes")[1];
    EXPECT_EQ(p.at("name"), "block");
    EXPECT_TRUE(p.at("hook").is_string());
    EXPECT_EQ(p.at("attached"), false);
    EXPECT_EQ(p.at("reason"), "missing");
}

TEST(JsonRenderer, ProcessesAndFilesContract) {
    Report r = fixture();
    r.processes[0].info.exit_code = 0;
    const json j = report_to_json(r);
    ASSERT_EQ(j.at("processes").size(), 1u);
    const json& p = j.at("processes")[0];
    EXPECT_EQ(p.at("pid"), 100);
    EXPECT_TRUE(p.at("ppid").is_number_unsigned());
    EXPECT_EQ(p.at("comm"), "python3");
    EXPECT_EQ(p.at("cmdline"), json({"python3", "train.py"}));
    EXPECT_TRUE(p.at("start_ns").is_number_unsigned());
    EXPECT_TRUE(p.at("end_ns").is_number_unsigned());
    EXPECT_EQ(p.at("exit_code"), 0);
    expect_op_table(p.at("ops"), "processes[0].ops");

    ASSERT_EQ(j.at("files").size(), 1u);
    const json& f = j.at("files")[0];
    EXPECT_EQ(f.at("path"), "/data/shard-0001.tar");
    EXPECT_EQ(f.at("dev"), (8u << 20) | 1);
    EXPECT_EQ(f.at("ino"), 1234);
    EXPECT_EQ(f.at("size"), 1 << 30);
    EXPECT_EQ(f.at("sequential"), 2);
    EXPECT_EQ(f.at("random"), 1);
    expect_op_table(f.at("ops"), "files[0].ops");

    r.processes[0].info.exit_code.reset();
    EXPECT_TRUE(report_to_json(r).at("processes")[0].at("exit_code").is_null());
}

TEST(JsonRenderer, HistogramValues) {
    const json rd = report_to_json(fixture()).at("totals").at("read");
    EXPECT_EQ(rd.at("calls"), 4);
    EXPECT_EQ(rd.at("errors"), 1);
    EXPECT_EQ(rd.at("bytes"), 8292);
    EXPECT_EQ(rd.at("requested_bytes"), 16384);
    const json& sizes = rd.at("size_bytes");
    // 100 in [64, 128), 2 x 4096 in [4096, 8192); nothing between is listed.
    ASSERT_EQ(sizes.at("buckets").size(), 2u);
    EXPECT_EQ(sizes.at("buckets")[0], json({{"lo", 64}, {"hi", 128}, {"count", 1}}));
    EXPECT_EQ(sizes.at("buckets")[1], json({{"lo", 4096}, {"hi", 8192}, {"count", 2}}));
    EXPECT_EQ(sizes.at("p50"), 4096);
    EXPECT_EQ(sizes.at("max"), 4096);
    EXPECT_EQ(rd.at("latency_ns").at("max"), 2000);
    const json empty = report_to_json(fixture()).at("totals").at("sync").at("latency_ns");
    EXPECT_TRUE(empty.at("buckets").empty());
    EXPECT_EQ(empty.at("p50"), 0);
    EXPECT_EQ(empty.at("p99"), 0);
    EXPECT_EQ(empty.at("max"), 0);
}

TEST(JsonRenderer, TextIsPrettyParseableAndSurvivesNonUtf8Names) {
    Report r = fixture();
    r.files[0].path = "/data/bad\xff\xfename";
    const std::string text = report_to_json_text(r);
    ASSERT_FALSE(text.empty());
    EXPECT_EQ(text.back(), '\n');
    EXPECT_EQ(text.substr(0, 4), "{\n  ");  // 2-space indent
    const json back = json::parse(text);
    // Not UTF-8: lossless bytes, and a readable text with the bad bytes escaped.
    EXPECT_EQ(back.at("files")[0].at("path").at("bytes_hex"), "2f646174612f626164fffe6e616d65");
    EXPECT_EQ(back.at("files")[0].at("path").at("text"), "/data/bad\\xff\\xfename");
    EXPECT_EQ(back.at("schema"), "iolens.report");
}

// report_to_json_text writes the files one at a time into the document
// without them: the text must be exactly the whole document's dump.
TEST(JsonRenderer, TextWithFilesSplicedInIsTheWholeDocumentsDump) {
    for (size_t n : {size_t{0}, size_t{1}, size_t{3}}) {
        Report r = fixture();
        FileStats f = r.files.at(0);
        r.files.clear();
        for (size_t i = 0; i < n; ++i) {
            f.path = i == 1 ? std::string("/data/bad\xff name\n\"quoted\"") : "/data/f" + std::to_string(i);
            f.ino = 10 + i;
            f.ops[IOLENS_OP_READ].latency_ns.add(1000 * (i + 1));
            r.files.push_back(f);
        }
        const std::string whole =
            report_to_json(r).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
        EXPECT_EQ(report_to_json_text(r), whole) << n << " files";
    }
}

namespace {

// Files unlike the fixture's: every class with calls, wide and empty
// histograms, extreme values, a non-UTF-8 and a quoted path, other paths
// than syscalls, async requests, software; with the probe families live and
// not (nulls).
std::vector<FileStats> varied_files() {
    std::vector<FileStats> out;
    for (int i = 0; i < 4; ++i) {
        FileStats f;
        f.path = i == 0   ? std::string("/data/bad\xff\xfe name\t\"q\"\\")
                 : i == 1 ? std::string("/usr/lib/python3/x.so")
                          : "/data/f" + std::to_string(i);
        f.dev = i == 2 ? UINT32_MAX : (259u << 20) | static_cast<uint32_t>(i);
        f.ino = i == 3 ? UINT64_MAX : 1000 + static_cast<uint64_t>(i);
        f.size = static_cast<uint64_t>(i) << 40;
        f.software = i == 1;
        for (int op = 0; op < kOpCount; ++op) {
            if ((op + i) % 3 == 0) continue;  // some classes empty
            OpStats& s = f.ops[op];
            for (uint64_t v = 1; v < 200'000; v = v * 3 + static_cast<uint64_t>(op)) {
                s.latency_ns.add(v * 17, 1 + v % 5);
                s.size_bytes.add(v % 7 ? 4096 : 0);
                s.calls++;
                s.bytes += v;
            }
            if (op == 0 && i == 3) s.latency_ns.add(UINT64_MAX);
            s.errors = static_cast<uint64_t>(op);
            s.requested_bytes = s.bytes * 2;
            s.time_ns = UINT64_MAX - static_cast<uint64_t>(op);
            s.blocked_ns = static_cast<uint64_t>(op) * 11;
        }
        f.sequential = static_cast<uint64_t>(i) * 7;
        f.random = UINT64_MAX - static_cast<uint64_t>(i);
        f.page_cache.hit_bytes = 4096 * static_cast<uint64_t>(i);
        f.page_cache.miss_bytes = i == 2 ? 0 : 8192;
        f.page_cache.blocked_ns = 5;
        if (i >= 2) {
            f.paths.by[IOLENS_PATH_IO_URING][IOLENS_OP_READ].calls = 3;
            f.paths.by[IOLENS_PATH_IO_URING][IOLENS_OP_READ].bytes = 12288;
            f.async.requests = 3;
            f.async.request_ns = 3000;
            f.async.busy_ns = 1500;
            f.async.max_depth = 2;
        }
        out.push_back(f);
    }
    return out;
}

}  // namespace

// The files are written as text straight, not dumped from a tree
// (json_renderer.cpp, FileText): the text must still be the whole
// document's dump, for any file, with the probes live and not.
TEST(JsonRenderer, FilesWrittenAsTextAreTheTreesDump) {
    for (const bool live : {true, false}) {
        Report r = fixture();
        if (live) {
            r.capture.probes.push_back({"pagecache", "tp/filemap/mm_filemap_add_to_page_cache", true, ""});
            r.capture.probes.push_back({"blocking", "tp_btf/sched_switch", true, ""});
        }
        r.files = varied_files();
        const std::string whole =
            report_to_json(r).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
        EXPECT_EQ(report_to_json_text(r), whole) << (live ? "probes live" : "probes not live");
    }
}
