// The report model's small helpers: names, dev_t parts, merging, rankings.
#include <gtest/gtest.h>

#include <string>

#include "model/report.h"

using namespace iolens::model;

TEST(ReportModel, OpNamesFollowTheAbiEnum) {
    EXPECT_STREQ(op_name(IOLENS_OP_READ), "read");
    EXPECT_STREQ(op_name(IOLENS_OP_WRITE), "write");
    EXPECT_STREQ(op_name(IOLENS_OP_OPEN), "open");
    EXPECT_STREQ(op_name(IOLENS_OP_CLOSE), "close");
    EXPECT_STREQ(op_name(IOLENS_OP_STAT), "stat");
    EXPECT_STREQ(op_name(IOLENS_OP_SEEK), "seek");
    EXPECT_STREQ(op_name(IOLENS_OP_MMAP), "mmap");
    EXPECT_STREQ(op_name(IOLENS_OP_READDIR), "readdir");
    EXPECT_STREQ(op_name(IOLENS_OP_SYNC), "sync");
    EXPECT_STREQ(op_name(IOLENS_OP_COUNT), "unknown");
    EXPECT_STREQ(op_name(-1), "unknown");
}

TEST(ReportModel, KernelDevT) {
    const uint32_t dev = (259u << 20) | 0xabcde;
    EXPECT_EQ(iolens::recording::dev_major(dev), 259u);
    EXPECT_EQ(iolens::recording::dev_minor(dev), 0xabcdeu);
    EXPECT_EQ(iolens::recording::dev_major(8u << 20 | 1), 8u);
    EXPECT_EQ(iolens::recording::dev_minor(8u << 20 | 1), 1u);
}

TEST(ReportModel, OpStatsMerge) {
    OpStats a, b;
    a.calls = 2, a.errors = 1, a.bytes = 10, a.requested_bytes = 20, a.time_ns = 300;
    a.latency_ns.add(100);
    a.latency_ns.add(200);
    a.size_bytes.add(10);
    b.calls = 1, b.bytes = 5, b.requested_bytes = 5, b.time_ns = 50;
    b.latency_ns.add(50);
    b.size_bytes.add(5);
    a.merge(b);
    EXPECT_EQ(a.calls, 3u);
    EXPECT_EQ(a.errors, 1u);
    EXPECT_EQ(a.bytes, 15u);
    EXPECT_EQ(a.requested_bytes, 25u);
    EXPECT_EQ(a.time_ns, 350u);
    EXPECT_EQ(a.latency_ns.count(), 3u);
    EXPECT_EQ(a.latency_ns.min(), 50u);
    EXPECT_EQ(a.size_bytes.sum(), 15u);
}

TEST(ReportModel, TopProcessesByReadPlusWriteBytes) {
    Report r;
    for (uint32_t pid : {1u, 2u, 3u, 4u}) {
        ProcessStats p;
        p.info.pid = pid;
        p.ops[IOLENS_OP_READ].bytes = pid == 2 ? 100 : 10;
        p.ops[IOLENS_OP_WRITE].bytes = pid == 4 ? 200 : 0;
        p.ops[IOLENS_OP_STAT].time_ns = pid;
        p.ops[IOLENS_OP_READ].time_ns = 1000;
        r.processes.push_back(p);
    }
    const auto top = top_processes(r, 3);
    ASSERT_EQ(top.size(), 3u);
    EXPECT_EQ(top[0]->info.pid, 4u);  // 210
    EXPECT_EQ(top[1]->info.pid, 2u);  // 100
    EXPECT_EQ(top[2]->info.pid, 1u);  // 10, tie with 3: lower pid first
    EXPECT_EQ(top_processes(r, 99).size(), 4u);
    EXPECT_EQ(rw_bytes(r.processes[3].ops), 210u);
    EXPECT_EQ(total_time_ns(r.processes[2].ops), 1003u);
}
