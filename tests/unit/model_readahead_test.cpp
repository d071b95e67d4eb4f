// The readahead judgement (model/readahead_judge.h): read-ahead pages are
// "never read" only when no read of the job covered them between their
// insertion and their eviction (or the end), whatever the page flags said.
#include <gtest/gtest.h>

#include <cstring>

#include "model/read_cover.h"
#include "model/readahead_judge.h"
#include "model/report_builder.h"
#include "recording/record_buffer.h"

using namespace iolens::model;
using iolens::recording::RecordBuffer;

namespace {

constexpr uint32_t kDev = (253u << 20) | 1;
constexpr uint32_t kPid = 100;

// A read of `bytes` at `offset` of inode 7, from t to t + 1000 ns.
void read_at(RecordBuffer& b, uint64_t offset, uint64_t bytes, uint64_t t, uint64_t cache_in = 0,
             uint64_t readahead = 0) {
    iolens_syscall_rec r{};
    r.op = IOLENS_OP_READ;
    r.flags = IOLENS_SC_HAS_FILE | IOLENS_SC_REGULAR;
    r.pid = r.tid = kPid;
    r.start_ns = t;
    r.duration_ns = 1000;
    r.ret = static_cast<int64_t>(bytes);
    r.requested = bytes;
    r.offset = offset;
    r.ino = 7;
    r.dev = kDev;
    r.fd = 3;
    r.cache_in_bytes = cache_in;
    r.readahead_bytes = readahead;
    b.syscall(r);
}

// Read-ahead pages [index, index + pages) of inode 7 added at added_ns and
// evicted (or, RESIDENT, still cached) at gone_ns.
void readahead_gone(RecordBuffer& b, uint8_t kind, uint64_t index, uint64_t pages, uint64_t added_ns,
                    uint64_t gone_ns, uint64_t ra_pages) {
    iolens_pagecache_rec r{};
    r.kind = kind;
    r.flags = IOLENS_PCF_READAHEAD;
    r.pid = r.tid = kPid;
    r.dev = kDev;
    r.ino = 7;
    r.index = index;
    r.bytes = pages * 4096;
    r.ts_ns = gone_ns;
    r.first_ns = added_ns;
    r.ra_bytes = ra_pages * 4096;
    r.folios = 1;
    b.pagecache(r);
}

Report build(const RecordBuffer& b) {
    ReportBuilder builder;
    EXPECT_TRUE(builder.add_records(b.bytes()).ok());
    return builder.finish();
}

}  // namespace

TEST(ReadCover, KeepsTheLatestReadOfEachPage) {
    ReadCover c;
    c.add(0, 10, 100);
    c.add(5, 15, 200);
    c.add(7, 8, 50);  // older than what covers it: changes nothing
    EXPECT_EQ(c.read_since(0, 20, 0), 15u);
    EXPECT_EQ(c.read_since(0, 20, 150), 10u);  // pages 5..14
    EXPECT_EQ(c.read_since(0, 5, 150), 0u);
    EXPECT_EQ(c.read_since(12, 13, 200), 1u);
    EXPECT_EQ(c.read_since(15, 30, 0), 0u);
}

TEST(ReadaheadModel, AStreamReadToTheEndLeavesNothingUnreadWhateverWasEvicted) {
    // 64 pages read 4 KiB at a time; every 16-page readahead window is added
    // before its pages are read and evicted after (memory pressure): all read.
    RecordBuffer b;
    for (uint64_t p = 0; p < 64; ++p) read_at(b, p * 4096, 4096, 10'000 + p * 2000, 4096, 0);
    for (uint64_t w = 0; w < 4; ++w)
        readahead_gone(b, IOLENS_PC_EVICT, w * 16, 16, 10'000 + w * 32'000 - 500,
                       10'000 + w * 32'000 + 40'000, 16);
    const Report r = build(b);
    EXPECT_EQ(r.page_cache.evicted_bytes, 64u * 4096);
    EXPECT_EQ(r.page_cache.readahead_unused_bytes, 0u);
    EXPECT_EQ(r.page_cache.readahead_unread_bytes, 0u);
}

TEST(ReadaheadModel, PagesNeverReadAfterTheyWereAddedAreUnused) {
    RecordBuffer b;
    read_at(b, 0, 4096, 1000, 16384, 12288);  // page 0; readahead brings in 1..3
    readahead_gone(b, IOLENS_PC_EVICT, 0, 4, 1500, 50'000, 3);
    // Pages 8..11: read once before they were read ahead again, then evicted unread.
    read_at(b, 8 * 4096, 16384, 2000);
    readahead_gone(b, IOLENS_PC_EVICT, 8, 4, 10'000, 60'000, 4);
    // Pages 20..23 still cached at the end; page 21 read after they came in.
    read_at(b, 21 * 4096, 4096, 30'000);
    readahead_gone(b, IOLENS_PC_RESIDENT, 20, 4, 20'000, 90'000, 4);
    const Report r = build(b);
    EXPECT_EQ(r.page_cache.readahead_unused_bytes, (3u + 4u) * 4096);  // at most ra_bytes of the first
    EXPECT_EQ(r.page_cache.readahead_unread_bytes, 3u * 4096);
    EXPECT_EQ(r.page_cache.evicted_bytes, 8u * 4096) << "a RESIDENT record is no eviction";
    ASSERT_EQ(r.files.size(), 1u);
    EXPECT_EQ(r.files[0].page_cache.readahead_unused_bytes, 7u * 4096);
    EXPECT_EQ(r.files[0].page_cache.readahead_unread_bytes, 3u * 4096);
    ASSERT_EQ(r.processes.size(), 1u);
    EXPECT_EQ(r.processes[0].page_cache.readahead_unused_bytes, 7u * 4096);
}

TEST(ReadaheadModel, PastTheReadSpanBudgetAFileIsNotJudged) {
    // Memory stays bounded: past max_read_spans a file's reads are not kept,
    // and its read-ahead pages are then neither read nor unused (never a
    // waste finding made up from reads that were dropped).
    RecordBuffer b;
    for (uint64_t p = 0; p < 8; ++p) read_at(b, p * 8 * 4096, 4096, 1000 + p * 2000);  // 8 runs
    readahead_gone(b, IOLENS_PC_EVICT, 1, 4, 500, 90'000, 4);  // never read: unused when judged
    EXPECT_EQ(build(b).page_cache.readahead_unused_bytes, 4u * 4096);
    BuilderOptions small;
    small.max_read_spans = 4;
    ReportBuilder builder(small);
    ASSERT_TRUE(builder.add_records(b.bytes()).ok());
    const Report r = builder.finish();
    EXPECT_EQ(r.page_cache.readahead_unused_bytes, 0u);
    EXPECT_EQ(r.page_cache.readahead_unread_bytes, 0u);
}

TEST(ReadaheadModel, ReadsArrivingAfterTheEvictionStillCount) {
    // Syscall records of a thread come in batches: the read of the pages may
    // reach the stream after their eviction record.
    RecordBuffer b;
    readahead_gone(b, IOLENS_PC_EVICT, 4, 4, 1000, 9000, 4);
    read_at(b, 4 * 4096, 16384, 2000);
    EXPECT_EQ(build(b).page_cache.readahead_unused_bytes, 0u);
}

TEST(ReadaheadModel, RecordsBeforeRunsAreReadAsOneFolio) {
    // A 56-byte record (before runs): its major fault comes from the flag.
    iolens_pagecache_rec r{};
    r.hdr = {IOLENS_REC_PAGECACHE, IOLENS_PAGECACHE_REC_V1_SIZE};
    r.kind = IOLENS_PC_FAULT_IN;
    r.flags = IOLENS_PCF_MAJOR_FAULT;
    r.pid = r.tid = kPid;
    r.dev = kDev;
    r.ino = 7;
    r.bytes = 16384;
    RecordBuffer b;
    b.raw(&r, IOLENS_PAGECACHE_REC_V1_SIZE);
    const Report rep = build(b);
    EXPECT_EQ(rep.page_cache.fault_bytes, 16384u);
    EXPECT_EQ(rep.page_cache.major_faults, 1u);
}

TEST(ReadaheadModel, ARunCountsItsMajorFaults) {
    iolens_pagecache_rec r{};
    r.kind = IOLENS_PC_FAULT_IN;
    r.flags = IOLENS_PCF_MAJOR_FAULT;
    r.pid = r.tid = kPid;
    r.dev = kDev;
    r.ino = 7;
    r.bytes = 65536;
    r.majors = 3;
    r.folios = 16;
    RecordBuffer b;
    b.pagecache(r);
    EXPECT_EQ(build(b).page_cache.major_faults, 3u);
}
