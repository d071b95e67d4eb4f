// CallSplit (issue #19): start-up, software and data, and the flush of
// written files, from synthetic record streams.
#include <gtest/gtest.h>

#include <string>

#include "analysis/findings.h"
#include "model_rank_records.h"

using namespace iolens;
using namespace iolens::model;
using test::kMs;

namespace {

const Finding* find(const std::vector<Finding>& fs, const std::string& id) {
    for (const auto& f : fs)
        if (f.id == id) return &f;
    return nullptr;
}

// import torch (50 modules read from a cold cache, 2 ms each), then a
// torch.save: an O_TRUNC open (20 ms), 10 MiB of writes, an fsync and a
// close that flushes (30 ms). No DataLoader.
test::DlStream checkpoint_only() {
    test::DlStream s;
    s.fork(100, 1, 1 * kMs);
    for (uint64_t i = 0; i < 50; ++i) {
        const uint64_t ino = 1000 + i, t = 2 * kMs + i * 2 * kMs;
        s.file(ino, "/usr/lib/python3/dist-packages/torch/m" + std::to_string(i) + ".py");
        s.load(100, ino, t);
        s.call({.pid = 100, .op = IOLENS_OP_READ, .start = t + 1500, .dur = 2 * kMs - 2000, .ino = ino});
    }
    s.file(7, "/ckpt/model.pt");
    s.call({.pid = 100, .op = IOLENS_OP_OPEN, .start = 110 * kMs, .dur = 20 * kMs, .ino = 7, .ret = 3});
    for (uint64_t i = 0; i < 10; ++i)
        s.call({.pid = 100,
                .op = IOLENS_OP_WRITE,
                .start = 131 * kMs + i * kMs,
                .dur = kMs / 2,
                .ino = 7,
                .ret = 1 << 20});
    s.call({.pid = 100, .op = IOLENS_OP_SYNC, .start = 142 * kMs, .dur = 10 * kMs, .ino = 7, .ret = 0});
    s.call({.pid = 100, .op = IOLENS_OP_CLOSE, .start = 153 * kMs, .dur = 30 * kMs, .ino = 7, .ret = 0});
    s.exit(100, 1, 200 * kMs);
    return s;
}

}  // namespace

TEST(CallSplit, CheckpointOnlyJob) {
    const Report r = test::build(checkpoint_only(), test::dl_capture(200 * kMs));
    ASSERT_TRUE(r.split.known);
    ASSERT_EQ(r.ranks.size(), 1u);
    // Start-up ends at the checkpoint's open: the imports are start-up.
    EXPECT_EQ(r.split.startup_end_ns, 110 * kMs);
    EXPECT_EQ(r.split.startup[IOLENS_OP_OPEN].calls, 50u);
    EXPECT_EQ(r.split.startup[IOLENS_OP_READ].calls, 100u);
    EXPECT_EQ(r.split.software_files, 50u);
    EXPECT_EQ(r.split.data_files, 1u);
    // The checkpoint's open and close are its flush, not metadata.
    EXPECT_EQ(r.split.flush.calls, 2u);
    EXPECT_EQ(r.split.flush.time_ns, 50 * kMs);
    EXPECT_EQ(r.split.data[IOLENS_OP_OPEN].calls, 0u);
    EXPECT_EQ(r.split.data[IOLENS_OP_CLOSE].calls, 0u);
    EXPECT_EQ(r.split.data[IOLENS_OP_WRITE].calls, 10u);
    const auto& p = r.processes.front();
    EXPECT_EQ(p.flush.time_ns, 50 * kMs);
    // The rank read no data file; its start-up ran from its fork to the open.
    EXPECT_EQ(r.ranks[0].data_reads, 0u);
    EXPECT_EQ(r.ranks[0].startup_ns, 109 * kMs);
    EXPECT_EQ(r.ranks[0].startup_critical_io_ns, 50 * (2 * kMs - 900));  // open + 2 reads, less gaps
    // The findings: a checkpoint stall (5 + 10 + 50 ms of 199 ms), no io_stall
    // and no DataLoader advice, no metadata_heavy.
    const auto fs = analysis::analyze(r);
    EXPECT_EQ(find(fs, "io_stall"), nullptr);
    EXPECT_EQ(find(fs, "metadata_heavy"), nullptr);
    const auto* c = find(fs, "checkpoint_stall");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->evidence["flush_time_ns"], 50 * kMs);
    EXPECT_EQ(c->evidence["write_time_ns"], 5 * kMs);
}

TEST(CallSplit, AFileWrittenOnceThenReReadHasMetadataNotFlush) {
    // A config written once (open, write, close: its flush), then opened,
    // read and closed at each of 20 steps: those opens and closes are the
    // reads' metadata, not a flush of the one write.
    test::DlStream s;
    s.fork(100, 1, 1 * kMs);
    s.file(7, "/work/labels.json");
    s.call({.pid = 100, .op = IOLENS_OP_OPEN, .start = 2 * kMs, .ino = 7, .ret = 3});
    s.call({.pid = 100, .op = IOLENS_OP_WRITE, .start = 3 * kMs, .ino = 7, .ret = 3000});
    s.call({.pid = 100, .op = IOLENS_OP_CLOSE, .start = 4 * kMs, .ino = 7, .ret = 0});
    for (uint64_t i = 0; i < 20; ++i) {
        const uint64_t t = 10 * kMs + i * kMs;
        s.call({.pid = 100, .op = IOLENS_OP_OPEN, .start = t, .ino = 7, .ret = 3});
        s.call({.pid = 100, .op = IOLENS_OP_READ, .start = t + 100'000, .ino = 7, .ret = 3000});
        s.call({.pid = 100, .op = IOLENS_OP_CLOSE, .start = t + 200'000, .ino = 7, .ret = 0});
    }
    s.exit(100, 1, 40 * kMs);
    const Report r = test::build(s, test::dl_capture(40 * kMs));
    ASSERT_TRUE(r.split.known);
    EXPECT_EQ(r.split.flush.calls, 2u);
    EXPECT_EQ(r.split.data[IOLENS_OP_OPEN].calls, 20u);
    EXPECT_EQ(r.split.data[IOLENS_OP_CLOSE].calls, 20u);
}

TEST(CallSplit, DataReadsEndStartUpAndSoftwareIsLeftOutOfTheData) {
    test::DlStream s;
    s.fork(100, 1, 1 * kMs);
    s.file(1, "/home/u/venv/lib/python3.11/site-packages/numpy/core/_multiarray.cpython-311.so");
    s.load(100, 1, 2 * kMs);
    s.call({.pid = 100, .op = IOLENS_OP_STAT, .start = 3 * kMs, .ret = -2});  // a failed import probe
    s.file(2, "/data/train/0.jpg");
    s.load(100, 2, 10 * kMs);
    s.call({.pid = 100, .op = IOLENS_OP_STAT, .start = 11 * kMs, .ret = -2});  // os.path.exists per sample
    s.file(3, "/usr/lib/python3.11/json/decoder.py");                          // a late import
    s.load(100, 3, 12 * kMs);
    s.exit(100, 1, 20 * kMs);
    const Report r = test::build(s, test::dl_capture(20 * kMs));
    ASSERT_TRUE(r.split.known);
    EXPECT_EQ(r.split.startup_end_ns, 10 * kMs + 200);  // the first read of the JPEG
    EXPECT_EQ(r.split.startup[IOLENS_OP_STAT].calls, 1u);
    EXPECT_EQ(r.split.startup[IOLENS_OP_OPEN].calls, 2u);  // the .so, and the JPEG's open
    EXPECT_EQ(r.split.data[IOLENS_OP_STAT].calls, 1u);
    EXPECT_EQ(r.split.data[IOLENS_OP_READ].calls, 1u);  // the JPEG; not the late .py
    EXPECT_EQ(r.split.data[IOLENS_OP_OPEN].calls, 0u);  // the JPEG's open was in start-up
    EXPECT_EQ(r.ranks[0].data_reads, 1u);
    for (const auto& f : r.files) EXPECT_EQ(f.software, f.path.rfind("/data/", 0) != 0) << f.path;
}

// The charge is made on the split's own pass (no writes): a call recorded
// after a data read but started before it is still start-up; one started
// after it is data. With more start-up calls than the pass holds back
// (65,536), the charge falls back to a pass of its own: the same figures.
TEST(CallSplit, CallsRecordedOutOfStartOrderAndManyStartUpCallsAreChargedTheSame) {
    for (const uint64_t early : {uint64_t{0}, uint64_t{70'000}}) {
        test::DlStream s;
        s.fork(100, 1, 1 * kMs);
        for (uint64_t i = 0; i < early; ++i)  // import probes, before any data read
            s.call({.pid = 100, .op = IOLENS_OP_STAT, .start = 2 * kMs + i * 10, .dur = 5, .ret = -2});
        s.file(2, "/data/train/0.jpg");
        s.load(100, 2, 10 * kMs);  // its open, then its first read at 10 ms + 200 ns
        // Completed (recorded) after the read, started before it.
        s.call({.pid = 100, .op = IOLENS_OP_STAT, .start = 9 * kMs, .dur = 2 * kMs, .ret = -2});
        s.call({.pid = 100, .op = IOLENS_OP_STAT, .start = 15 * kMs, .dur = kMs, .ret = -2});
        s.exit(100, 1, 20 * kMs);
        const Report r = test::build(s, test::dl_capture(20 * kMs));
        ASSERT_TRUE(r.split.known);
        EXPECT_EQ(r.split.startup_end_ns, 10 * kMs + 200) << early;
        EXPECT_EQ(r.split.startup[IOLENS_OP_STAT].calls, early + 1) << early;
        EXPECT_EQ(r.split.startup[IOLENS_OP_STAT].time_ns, early * 5 + 2 * kMs) << early;
        EXPECT_EQ(r.split.startup[IOLENS_OP_OPEN].calls, 1u) << early;
        EXPECT_EQ(r.split.data[IOLENS_OP_STAT].calls, 1u) << early;
        EXPECT_EQ(r.split.data[IOLENS_OP_STAT].time_ns, kMs) << early;
        EXPECT_EQ(r.split.data[IOLENS_OP_READ].calls, 1u) << early;
        EXPECT_EQ(r.split.startup[IOLENS_OP_READ].calls, 0u) << early;
    }
}
