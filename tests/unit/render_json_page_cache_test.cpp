// The JSON report's page-cache and block keys (docs/report-schema.md): present
// with the documented types when their probes were live, null when not.
#include <gtest/gtest.h>

#include "model/report_builder.h"
#include "model_records.h"
#include "report/json_renderer.h"

using namespace iolens::model;
using iolens::report::report_to_json;
using iolens::test::kDiskDev;
using iolens::test::Records;
using nlohmann::json;

namespace {

const char* kOps[] = {"read", "write", "open", "close", "stat", "seek", "mmap", "readdir", "sync"};

CaptureInfo capture(bool pagecache, bool blocking, bool block) {
    CaptureInfo c;
    c.probes = {
        {"syscalls", "tp_btf/sys_enter", true, ""},
        {"pagecache", "tp/filemap/mm_filemap_add_to_page_cache", pagecache, pagecache ? "" : "missing"},
        {"blocking", "tp_btf/sched_switch", blocking, ""},
        {"block", "tp/block/block_rq_issue", block, ""}};
    c.devices = {{kDiskDev, "vda"}};
    return c;
}

Report build(const CaptureInfo& cap) {
    Records s;
    s.syscall({.pid = 100, .ret = 4096, .ino = 7, .cache_in = 131072, .readahead = 126976, .blocked = 5000});
    s.syscall({.pid = 100, .ret = 12288, .ino = 7});   // from the readahead
    s.syscall({.pid = 100, .ret = 131072, .ino = 7});  // 114688 of it too, 16384 hit
    s.pagecache(IOLENS_PC_FAULT_IN, IOLENS_PCF_MAJOR_FAULT, 100, 7, 4096);
    s.pagecache(IOLENS_PC_EVICT, IOLENS_PCF_UNREFERENCED, 100, 7, 8192);
    s.block({.op = IOLENS_BLK_READ,
             .flags = IOLENS_BLKF_QUEUED,
             .depth = 4,
             .pid = 100,
             .bytes = 131072,
             .sector = 0,
             .queue_ns = 3000,
             .service_ns = 200'000});
    s.block(
        {.op = IOLENS_BLK_READ, .depth = 2, .pid = 100, .bytes = 4096, .sector = 256, .service_ns = 90'000});
    s.block({.op = IOLENS_BLK_WRITE, .dev = (259u << 20) | 2, .pid = 0, .bytes = 4096});
    s.block({.op = IOLENS_BLK_OTHER, .pid = 0, .bytes = 0});
    ReportBuilder b;
    b.set_capture(cap);
    EXPECT_TRUE(b.add_records(s.span()).ok());
    return b.finish();
}

void expect_hist(const json& h, const std::string& where) {
    ASSERT_TRUE(h.is_object()) << where;
    ASSERT_TRUE(h.at("buckets").is_array()) << where;
    for (const char* k : {"count", "sum", "min", "p50", "p99", "max"})
        EXPECT_TRUE(h.at(k).is_number_unsigned()) << where << "." << k;
}

void expect_page_cache(const json& pc, bool blocking, const std::string& where) {
    ASSERT_TRUE(pc.is_object()) << where;
    for (const char* k : {"hit_bytes", "miss_bytes", "readahead_bytes", "readahead_unused_bytes",
                          "fault_bytes", "major_faults", "evicted_bytes"})
        EXPECT_TRUE(pc.at(k).is_number_unsigned()) << where << "." << k;
    EXPECT_TRUE(pc.at("hit_ratio").is_number_float() || pc.at("hit_ratio").is_null()) << where;
    if (blocking)
        EXPECT_TRUE(pc.at("blocked_ns").is_number_unsigned()) << where;
    else
        EXPECT_TRUE(pc.at("blocked_ns").is_null()) << where;
}

void expect_block_stats(const json& s, const std::string& where) {
    ASSERT_TRUE(s.is_object()) << where;
    for (const char* k : {"requests", "bytes", "sequential", "random", "max_depth"})
        EXPECT_TRUE(s.at(k).is_number_unsigned()) << where << "." << k;
    for (const char* k : {"latency_ns", "queue_ns", "size_bytes"}) expect_hist(s.at(k), where + "." + k);
}

}  // namespace

TEST(JsonPageCache, KeysAndTypesAtEveryLevelWhenLive) {
    const json j = report_to_json(build(capture(true, true, true)));
    expect_page_cache(j.at("page_cache"), true, "page_cache");
    ASSERT_FALSE(j.at("processes").empty());
    for (const auto& p : j.at("processes")) {
        expect_page_cache(p.at("page_cache"), true, "processes[].page_cache");
        const json& b = p.at("block");
        ASSERT_TRUE(b.is_object());
        for (const char* k : {"read_bytes", "write_bytes", "requests"})
            EXPECT_TRUE(b.at(k).is_number_unsigned()) << k;
    }
    ASSERT_FALSE(j.at("files").empty());
    for (const auto& f : j.at("files")) expect_page_cache(f.at("page_cache"), true, "files[].page_cache");
    for (const char* op : kOps)
        EXPECT_TRUE(j.at("totals").at(op).at("blocked_ns").is_number_unsigned()) << op;
}

TEST(JsonPageCache, ExactValues) {
    const json j = report_to_json(build(capture(true, true, true)));
    const json& pc = j.at("page_cache");
    EXPECT_EQ(pc.at("hit_bytes"), 16384);
    EXPECT_EQ(pc.at("miss_bytes"), 131072);
    // Fault-ins came from the device too: they count against the ratio.
    EXPECT_DOUBLE_EQ(pc.at("hit_ratio").get<double>(), 16384.0 / (16384.0 + 131072.0 + 4096.0));
    EXPECT_EQ(pc.at("direct_bytes"), 0);
    EXPECT_EQ(pc.at("readahead_bytes"), 126976);
    EXPECT_EQ(pc.at("readahead_unused_bytes"), 8192);
    EXPECT_EQ(pc.at("fault_bytes"), 4096);
    EXPECT_EQ(pc.at("major_faults"), 1);
    EXPECT_EQ(pc.at("evicted_bytes"), 8192);
    EXPECT_EQ(pc.at("blocked_ns"), 5000);
    EXPECT_EQ(j.at("totals").at("read").at("blocked_ns"), 5000);
    EXPECT_EQ(j.at("files")[0].at("page_cache"), pc);  // one file, one process: the same
    EXPECT_EQ(j.at("processes")[0].at("page_cache"), pc);
    EXPECT_EQ(j.at("processes")[0].at("block"),
              json({{"read_bytes", 135168}, {"write_bytes", 0}, {"requests", 2}}));
}

TEST(JsonBlock, DevicesContractAndOrder) {
    const json b = report_to_json(build(capture(true, true, true))).at("block");
    ASSERT_TRUE(b.is_object());
    const json& devices = b.at("devices");
    ASSERT_EQ(devices.size(), 2u);
    for (const auto& d : devices) {
        EXPECT_TRUE(d.at("name").is_string());
        for (const char* k : {"dev", "major", "minor", "other_requests"})
            EXPECT_TRUE(d.at(k).is_number_unsigned()) << k;
        expect_block_stats(d.at("read"), "read");
        expect_block_stats(d.at("write"), "write");
    }
    // By total bytes: vda's reads first, then the unnamed NVMe partition.
    const json& vda = devices[0];
    EXPECT_EQ(vda.at("name"), "vda");
    EXPECT_EQ(vda.at("major"), 253);
    EXPECT_EQ(vda.at("minor"), 0);
    EXPECT_EQ(vda.at("other_requests"), 1);
    EXPECT_EQ(vda.at("read").at("requests"), 2);
    EXPECT_EQ(vda.at("read").at("bytes"), 135168);
    EXPECT_EQ(vda.at("read").at("sequential"), 1);  // 256 = 0 + 131072 / 512
    EXPECT_EQ(vda.at("read").at("random"), 1);
    EXPECT_EQ(vda.at("read").at("max_depth"), 4);
    EXPECT_EQ(vda.at("read").at("queue_ns").at("count"), 1);
    EXPECT_EQ(vda.at("read").at("latency_ns").at("max"), 200000);
    EXPECT_EQ(vda.at("read").at("size_bytes").at("min"), 4096);
    EXPECT_EQ(vda.at("write").at("requests"), 0);
    EXPECT_EQ(devices[1].at("name"), "259:2");
    EXPECT_EQ(b.at("unattributed"), json({{"read_bytes", 0}, {"write_bytes", 4096}, {"requests", 2}}));
}

TEST(JsonAvailability, NullWhenTheProbeWasNotLiveNeverZero) {
    const json j = report_to_json(build(capture(false, false, false)));
    EXPECT_TRUE(j.at("page_cache").is_null());
    EXPECT_TRUE(j.at("block").is_null());
    for (const auto& p : j.at("processes")) {
        EXPECT_TRUE(p.at("page_cache").is_null());
        EXPECT_TRUE(p.at("block").is_null());
        for (const char* op : kOps) EXPECT_TRUE(p.at("ops").at(op).at("blocked_ns").is_null()) << op;
    }
    for (const auto& f : j.at("files")) {
        EXPECT_TRUE(f.at("page_cache").is_null());
        EXPECT_TRUE(f.at("ops").at("read").at("blocked_ns").is_null());
    }
    for (const char* op : kOps) EXPECT_TRUE(j.at("totals").at(op).at("blocked_ns").is_null()) << op;

    // A capture that never listed the families (an older recording) is the same.
    const json old = report_to_json(build(CaptureInfo{}));
    EXPECT_TRUE(old.at("page_cache").is_null());
    EXPECT_TRUE(old.at("block").is_null());
}

TEST(JsonAvailability, EachFamilyOnItsOwn) {
    const json pc_only = report_to_json(build(capture(true, false, false)));
    expect_page_cache(pc_only.at("page_cache"), false, "page_cache");
    EXPECT_TRUE(pc_only.at("page_cache").at("blocked_ns").is_null());
    EXPECT_TRUE(pc_only.at("block").is_null());

    const json block_only = report_to_json(build(capture(false, false, true)));
    EXPECT_TRUE(block_only.at("page_cache").is_null());
    EXPECT_TRUE(block_only.at("block").is_object());
    EXPECT_TRUE(block_only.at("processes")[0].at("block").is_object());

    const json blocking_only = report_to_json(build(capture(false, true, false)));
    EXPECT_EQ(blocking_only.at("totals").at("read").at("blocked_ns"), 5000);
    EXPECT_TRUE(blocking_only.at("page_cache").is_null());
}

TEST(JsonPageCache, HitRatioIsNullWithNothingToMeasure) {
    Report r;
    r.capture = capture(true, true, true);
    r.page_cache.evicted_bytes = 4096;
    EXPECT_TRUE(report_to_json(r).at("page_cache").at("hit_ratio").is_null());
    // mmap fault-ins alone: 0%, not null and not 100%.
    r.page_cache.fault_bytes = 4096;
    const json pc = report_to_json(r).at("page_cache");
    EXPECT_EQ(pc.at("hit_ratio").get<double>(), 0.0);
    EXPECT_EQ(pc.at("fault_bytes"), 4096);
    EXPECT_TRUE(report_to_json(r).at("block").at("devices").is_array());
}
