// Block-layer aggregation in the ReportBuilder: per device and direction,
// sequential vs random by sector continuity, queue vs service time, the
// per-process charge, device names.
#include <gtest/gtest.h>

#include "model/report_builder.h"
#include "model_records.h"

using namespace iolens::model;
using namespace iolens::recording;
using iolens::test::kDiskDev;
using iolens::test::Records;

namespace {

constexpr uint32_t kDisk2 = (259u << 20) | 0;  // nvme0n1

Report build(const Records& s, const CaptureInfo& capture = {}) {
    ReportBuilder b;
    b.set_capture(capture);
    auto r = b.add_records(s.span());
    EXPECT_TRUE(r.ok()) << r.error().message;
    return b.finish();
}

const BlockDevice* find_device(const Report& r, uint32_t dev) {
    for (const auto& d : r.block_devices)
        if (d.dev == dev) return &d;
    return nullptr;
}

}  // namespace

TEST(BlockModel, TotalsAndHistogramsPerDeviceAndDirection) {
    Records s;
    s.block({.op = IOLENS_BLK_READ,
             .flags = IOLENS_BLKF_QUEUED,
             .depth = 3,
             .bytes = 4096,
             .sector = 0,
             .queue_ns = 2000,
             .service_ns = 100'000});
    s.block({.op = IOLENS_BLK_READ,
             .depth = 7,
             .bytes = 131072,
             .sector = 8,
             .queue_ns = 999'999,
             .service_ns = 400'000});  // not queued: queue_ns ignored
    s.block({.op = IOLENS_BLK_WRITE,
             .flags = IOLENS_BLKF_QUEUED,
             .depth = 2,
             .bytes = 8192,
             .sector = 5000,
             .queue_ns = 50'000,
             .service_ns = 1'000'000});
    s.block({.op = IOLENS_BLK_OTHER, .depth = 9, .bytes = 0});  // a flush
    const Report r = build(s);

    ASSERT_EQ(r.block_devices.size(), 1u);
    const BlockDevice& d = r.block_devices[0];
    EXPECT_EQ(d.dev, kDiskDev);
    EXPECT_EQ(d.other_requests, 1u);
    EXPECT_EQ(d.total_bytes(), 4096u + 131072 + 8192);

    EXPECT_EQ(d.read.requests, 2u);
    EXPECT_EQ(d.read.bytes, 135168u);
    EXPECT_EQ(d.read.latency_ns.count(), 2u);
    EXPECT_EQ(d.read.latency_ns.min(), 100'000u);
    EXPECT_EQ(d.read.latency_ns.max(), 400'000u);
    EXPECT_EQ(d.read.queue_ns.count(), 1u);  // only the queued request
    EXPECT_EQ(d.read.queue_ns.max(), 2000u);
    EXPECT_EQ(d.read.size_bytes.count(), 2u);
    EXPECT_EQ(d.read.size_bytes.max(), 131072u);
    EXPECT_EQ(d.read.max_depth, 7u);  // the flush's 9 belongs to no direction

    EXPECT_EQ(d.write.requests, 1u);
    EXPECT_EQ(d.write.bytes, 8192u);
    EXPECT_EQ(d.write.queue_ns.sum(), 50'000u);
    EXPECT_EQ(d.write.latency_ns.sum(), 1'000'000u);
    EXPECT_EQ(d.write.max_depth, 2u);
}

TEST(BlockModel, SequentialWhenASectorContinuesThePreviousRequest) {
    Records s;
    // Reads: 0 (first: random), 8 (= 0 + 4096/512), 16, 100 (gap), 108.
    for (uint64_t sector : {0, 8, 16, 100, 108}) s.block({.bytes = 4096, .sector = sector});
    // Writes keep their own position: 8 after a read ending at 116 is still
    // the first write (random), then 16 continues it.
    s.block({.op = IOLENS_BLK_WRITE, .bytes = 4096, .sector = 8});
    s.block({.op = IOLENS_BLK_WRITE, .bytes = 4096, .sector = 16});
    // Another disk continuing vda's last sector is not sequential.
    s.block({.dev = kDisk2, .bytes = 4096, .sector = 116});
    // A flush between two reads does not break their continuity.
    s.block({.op = IOLENS_BLK_OTHER, .bytes = 0, .sector = 0});
    s.block({.bytes = 65536, .sector = 116});
    s.block({.bytes = 4096, .sector = 116 + 128});
    const Report r = build(s);

    const BlockDevice* vda = find_device(r, kDiskDev);
    ASSERT_NE(vda, nullptr);
    EXPECT_EQ(vda->read.sequential, 5u);  // 8, 16, 108, 116, 244
    EXPECT_EQ(vda->read.random, 2u);      // 0, 100
    EXPECT_EQ(vda->write.sequential, 1u);
    EXPECT_EQ(vda->write.random, 1u);
    const BlockDevice* nvme = find_device(r, kDisk2);
    ASSERT_NE(nvme, nullptr);
    EXPECT_EQ(nvme->read.sequential, 0u);
    EXPECT_EQ(nvme->read.random, 1u);
}

TEST(BlockModel, ContinuityIsJudgedInIssueOrderNotCompletionOrder) {
    Records s;
    // A sequential stream 0, 8, 16, 24 issued in that order but completed
    // 8, 0, 24, 16 (a deep device queue): three continue the previous one.
    const std::pair<uint64_t, uint64_t> completed[] = {{8, 2}, {0, 1}, {24, 4}, {16, 3}};
    for (auto [sector, issue] : completed) s.block({.bytes = 4096, .sector = sector, .issue_ns = issue});
    const Report r = build(s);
    const BlockDevice* vda = find_device(r, kDiskDev);
    ASSERT_NE(vda, nullptr);
    EXPECT_EQ(vda->read.sequential, 3u);
    EXPECT_EQ(vda->read.random, 1u);
}

TEST(BlockModel, ChargedToTheSubmittingProcessOrUnattributed) {
    Records s;
    s.syscall({.pid = 100, .ret = 4096});
    s.block({.op = IOLENS_BLK_READ, .pid = 100, .bytes = 4096});
    s.block({.op = IOLENS_BLK_WRITE, .pid = 100, .bytes = 8192});
    s.block({.op = IOLENS_BLK_OTHER, .pid = 100, .bytes = 0});
    s.block({.op = IOLENS_BLK_READ, .pid = 0, .bytes = 512});  // untracked or kernel
    s.block({.op = IOLENS_BLK_WRITE, .pid = 0, .bytes = 1024});
    s.block({.op = IOLENS_BLK_READ, .pid = 200, .bytes = 65536});  // first seen here
    const Report r = build(s);

    ASSERT_EQ(r.processes.size(), 2u);
    const ProcessStats& p100 = r.processes[0];
    EXPECT_EQ(p100.info.pid, 100u);
    EXPECT_EQ(p100.block.read_bytes, 4096u);
    EXPECT_EQ(p100.block.write_bytes, 8192u);
    EXPECT_EQ(p100.block.requests, 3u);  // the flush counts as a request
    EXPECT_EQ(r.processes[1].info.pid, 200u);
    EXPECT_EQ(r.processes[1].block.read_bytes, 65536u);
    EXPECT_EQ(r.block_unattributed.read_bytes, 512u);
    EXPECT_EQ(r.block_unattributed.write_bytes, 1024u);
    EXPECT_EQ(r.block_unattributed.requests, 2u);

    const auto top = top_processes_by_block(r, 10);
    ASSERT_EQ(top.size(), 2u);
    EXPECT_EQ(top[0]->info.pid, 200u);
    EXPECT_EQ(top[1]->info.pid, 100u);
}

TEST(BlockModel, DevicesByBytesDescendingAndNamedFromTheCapture) {
    Records s;
    s.block({.dev = kDiskDev, .bytes = 4096});
    s.block({.dev = kDisk2, .bytes = 1 << 20});
    const uint32_t unnamed = (8u << 20) | 16;
    s.block({.op = IOLENS_BLK_WRITE, .dev = unnamed, .bytes = 8192});
    CaptureInfo cap;
    cap.devices = {{kDiskDev, "vda"}, {kDisk2, "nvme0n1"}};
    const Report r = build(s, cap);
    ASSERT_EQ(r.block_devices.size(), 3u);
    EXPECT_EQ(r.block_devices[0].name, "nvme0n1");
    EXPECT_EQ(r.block_devices[1].name, "8:16");  // not in the capture's list
    EXPECT_EQ(r.block_devices[2].name, "vda");
}

TEST(BlockModel, NamesComeFromTheCaptureAppliedAfterTheRecords) {
    // The recording's END chunk (device names) is applied after the records.
    Records s;
    s.block({.bytes = 4096});
    ReportBuilder b;
    ASSERT_TRUE(b.add_records(s.span()).ok());
    CaptureInfo cap;
    cap.devices = {{kDiskDev, "vda"}};
    b.set_capture(cap);
    EXPECT_EQ(b.finish().block_devices.at(0).name, "vda");
}

TEST(BlockModel, MergeAddsAndKeepsTheDeepestQueue) {
    BlockStats a, b;
    a.requests = 1, a.bytes = 10, a.sequential = 1, a.max_depth = 4;
    a.latency_ns.add(100);
    b.requests = 2, b.bytes = 20, b.random = 2, b.max_depth = 3;
    b.latency_ns.add(200, 2);
    b.queue_ns.add(5);
    a.merge(b);
    EXPECT_EQ(a.requests, 3u);
    EXPECT_EQ(a.bytes, 30u);
    EXPECT_EQ(a.sequential, 1u);
    EXPECT_EQ(a.random, 2u);
    EXPECT_EQ(a.max_depth, 4u);
    EXPECT_EQ(a.latency_ns.count(), 3u);
    EXPECT_EQ(a.queue_ns.count(), 1u);
}

TEST(Availability, ProbeLiveOnlyWhenAttached) {
    CaptureInfo c;
    EXPECT_FALSE(probe_live(c, kProbePageCache));
    EXPECT_EQ(probe_missing_reason(c, kProbePageCache), "probe pagecache was not part of this capture");
    c.probes = {{"pagecache", "tp/filemap/x", false, "tracepoint missing"},
                {"block", "tp/block/block_io_start", true, ""},
                {"blocking", "tp_btf/sched_switch", false, ""}};
    EXPECT_FALSE(probe_live(c, kProbePageCache));
    EXPECT_TRUE(probe_live(c, kProbeBlock));
    EXPECT_FALSE(probe_live(c, kProbeBlocking));
    EXPECT_EQ(probe_missing_reason(c, kProbePageCache), "probe pagecache not attached: tracepoint missing");
    EXPECT_EQ(probe_missing_reason(c, kProbeBlocking), "probe blocking not attached");
    EXPECT_EQ(probe_missing_reason(c, kProbeBlock), "");
    EXPECT_EQ(device_name(c, kDiskDev), "253:0");
    c.devices[kDiskDev] = "vda";
    EXPECT_EQ(device_name(c, kDiskDev), "vda");
}
