// Page-cache aggregation in the ReportBuilder: reads (hits, misses, readahead,
// blocked time), fault-ins, evictions, and the older 72-byte syscall records.
#include <gtest/gtest.h>

#include "model/report_builder.h"
#include "model_records.h"

using namespace iolens::model;
using iolens::test::Records;

namespace {

Report build(const Records& s) {
    ReportBuilder b;
    auto r = b.add_records(s.span());
    EXPECT_TRUE(r.ok()) << r.error().message;
    return b.finish();
}

const ProcessStats* find_process(const Report& r, uint32_t pid) {
    for (const auto& p : r.processes)
        if (p.info.pid == pid) return &p;
    return nullptr;
}

const FileStats* find_file(const Report& r, uint64_t ino) {
    for (const auto& f : r.files)
        if (f.ino == ino) return &f;
    return nullptr;
}

}  // namespace

TEST(PageCacheModel, ReadsSplitIntoHitsAndMissesPerStream) {
    Records s;
    s.syscall({.pid = 100, .ret = 4096, .ino = 7});  // cached: a hit
    s.syscall({.pid = 100,
               .ret = 4096,
               .ino = 7,
               .cache_in = 131072,  // starts readahead:
               .readahead = 126976,
               .blocked = 5000});                                                      // 126976 prefetched
    s.syscall({.pid = 100, .ret = 8192, .ino = 7, .cache_in = 4096, .blocked = 700});  // 4096 of
                                                                                       // it from the prefetch
    s.syscall({.pid = 101, .ret = 1000, .ino = 8});
    s.syscall({.pid = 101, .ret = 2000, .ino = 0, .cache_in = 500});  // no file identity
    s.syscall({.pid = 101, .ret = 0, .ino = 8});                      // EOF: nothing either way
    const Report r = build(s);

    const PageCacheStats& t = r.page_cache;
    EXPECT_EQ(t.hit_bytes, 4096u + 0 + 0 + 1000 + 1500);
    EXPECT_EQ(t.miss_bytes, 131072u + 4096 + 500);
    EXPECT_EQ(t.readahead_bytes, 126976u);
    EXPECT_EQ(t.blocked_ns, 5700u);
    EXPECT_EQ(t.fault_bytes, 0u);
    ASSERT_TRUE(t.hit_ratio().has_value());
    EXPECT_DOUBLE_EQ(*t.hit_ratio(), 6596.0 / (6596.0 + 135668.0));

    const ProcessStats* p100 = find_process(r, 100);
    const ProcessStats* p101 = find_process(r, 101);
    ASSERT_TRUE(p100 && p101);
    EXPECT_EQ(p100->page_cache.hit_bytes, 4096u);
    EXPECT_EQ(p100->page_cache.miss_bytes, 135168u);
    EXPECT_EQ(p100->page_cache.readahead_bytes, 126976u);
    EXPECT_EQ(p100->page_cache.blocked_ns, 5700u);
    EXPECT_EQ(p101->page_cache.hit_bytes, 2500u);
    EXPECT_EQ(p101->page_cache.miss_bytes, 500u);

    const FileStats* f7 = find_file(r, 7);
    const FileStats* f8 = find_file(r, 8);
    ASSERT_TRUE(f7 && f8);
    EXPECT_EQ(f7->page_cache.hit_bytes, 4096u);
    EXPECT_EQ(f7->page_cache.miss_bytes, 135168u);
    EXPECT_EQ(f7->page_cache.blocked_ns, 5700u);
    EXPECT_EQ(f8->page_cache.hit_bytes, 1000u);  // the no-file read is not here
    EXPECT_EQ(f8->page_cache.miss_bytes, 0u);
    EXPECT_DOUBLE_EQ(*f8->page_cache.hit_ratio(), 1.0);
}

// 4 KiB reads of a cold file: every 32nd read starts (async) readahead of the
// next 128 KiB and returns bytes already cached; the others find their bytes
// prefetched. Everything came from the device: no hits. (Per call, without
// the stream, the 31 reads in between would count as hits: ratio 0.49.)
TEST(PageCacheModel, ColdSequentialReadWithReadaheadHasNoHits) {
    Records s;
    for (int i = 0; i < 256; ++i) {
        const bool starts_window = i % 32 == 0;
        s.syscall({.ret = 4096,
                   .cache_in = starts_window ? 131072u : 0u,
                   .readahead = starts_window ? 131072u : 0u});
    }
    const Report r = build(s);
    EXPECT_EQ(r.page_cache.hit_bytes, 0u);
    EXPECT_EQ(r.page_cache.miss_bytes, 1u << 20);
    EXPECT_EQ(r.page_cache.readahead_bytes, 1u << 20);
    EXPECT_DOUBLE_EQ(*r.page_cache.hit_ratio(), 0.0);
}

TEST(PageCacheModel, WarmAndHalfCachedReads) {
    Records warm;
    for (int i = 0; i < 100; ++i) warm.syscall({.ret = 131072});
    EXPECT_EQ(build(warm).page_cache.hit_bytes, 100u * 131072);
    EXPECT_DOUBLE_EQ(*build(warm).page_cache.hit_ratio(), 1.0);

    // First half cached, second half cold and read ahead a window at a time.
    Records half;
    for (int i = 0; i < 8; ++i) half.syscall({.ret = 65536});
    for (int i = 0; i < 8; ++i) half.syscall({.ret = 65536, .cache_in = i % 2 ? 0u : 131072u});
    const Report r = build(half);
    EXPECT_EQ(r.page_cache.hit_bytes, 8u * 65536);
    EXPECT_EQ(r.page_cache.miss_bytes, 8u * 65536);
    EXPECT_DOUBLE_EQ(*r.page_cache.hit_ratio(), 0.5);
}

TEST(PageCacheModel, StreamsAreOneProcessReadingOneFile) {
    Records s;
    s.syscall({.pid = 100, .ret = 4096, .ino = 7, .cache_in = 65536});  // 61440 prefetched for 100:7
    s.syscall({.pid = 100, .ret = 4096, .ino = 8});                     // another file: a hit
    s.syscall({.pid = 101, .ret = 4096, .ino = 7});                     // another process: a hit
    s.syscall({.pid = 100, .ret = 4096, .ino = 0});                     // no file: its own stream
    s.syscall({.pid = 100, .ret = 65536, .ino = 7});                    // 61440 prefetched, 4096 hit
    const Report r = build(s);
    EXPECT_EQ(find_file(r, 8)->page_cache.hit_bytes, 4096u);
    EXPECT_EQ(find_process(r, 101)->page_cache.hit_bytes, 4096u);
    EXPECT_EQ(find_file(r, 7)->page_cache.hit_bytes, 4096u + 4096);
    EXPECT_EQ(find_process(r, 100)->page_cache.hit_bytes, 4096u + 4096 + 4096);
    EXPECT_EQ(r.page_cache.hit_bytes, 4u * 4096);
    // Every level is the sum of the reads charged to it.
    EXPECT_EQ(r.page_cache.hit_bytes,
              find_process(r, 100)->page_cache.hit_bytes + find_process(r, 101)->page_cache.hit_bytes);
}

TEST(PageCacheModel, FailedAndNonReadCallsAreNotCacheReads) {
    Records s;
    s.syscall({.ret = -5, .cache_in = 4096, .blocked = 10});  // EIO
    s.syscall({.op = IOLENS_OP_WRITE, .ret = 4096, .cache_in = 4096, .blocked = 30});
    s.syscall({.op = IOLENS_OP_MMAP, .ret = 0x7f0000000000, .cache_in = 8192});
    const Report r = build(s);
    EXPECT_TRUE(r.page_cache.empty());
    EXPECT_FALSE(r.page_cache.hit_ratio().has_value());
    // The blocked time still shows per class: it is a syscall figure.
    EXPECT_EQ(r.totals[IOLENS_OP_READ].blocked_ns, 10u);
    EXPECT_EQ(r.totals[IOLENS_OP_WRITE].blocked_ns, 30u);
}

TEST(PageCacheModel, DirectReadsCameFromTheDeviceNotTheCache) {
    Records s;
    s.syscall({.ret = 4096, .cache_in = 0, .blocked = 20, .extra_flags = IOLENS_SC_DIRECT});
    s.syscall({.ret = 8192, .cache_in = 0, .blocked = 5, .extra_flags = IOLENS_SC_DIRECT});
    const Report r = build(s);
    // An O_DIRECT-only job is not "100% cached": its bytes count against the ratio.
    EXPECT_EQ(r.page_cache.direct_bytes, 12288u);
    EXPECT_EQ(r.page_cache.hit_bytes, 0u);
    EXPECT_EQ(r.page_cache.miss_bytes, 0u);
    ASSERT_TRUE(r.page_cache.hit_ratio().has_value());
    EXPECT_DOUBLE_EQ(*r.page_cache.hit_ratio(), 0.0);
    EXPECT_EQ(r.page_cache.blocked_ns, 25u);
    EXPECT_EQ(find_file(r, 7)->page_cache.direct_bytes, 12288u);
    EXPECT_EQ(find_process(r, 100)->page_cache.direct_bytes, 12288u);
    // Half cached, half direct: 50%.
    Records m;
    m.syscall({.ret = 4096, .cache_in = 0});
    m.syscall({.ret = 4096, .cache_in = 0, .extra_flags = IOLENS_SC_DIRECT});
    EXPECT_DOUBLE_EQ(*build(m).page_cache.hit_ratio(), 0.5);
}

TEST(PageCacheModel, BlockedTimeIsKeptPerClassAtEveryLevel) {
    Records s;
    s.syscall({.pid = 100, .op = IOLENS_OP_STAT, .ret = 0, .ino = 0, .blocked = 300});
    s.syscall({.pid = 100, .op = IOLENS_OP_SYNC, .ret = 0, .ino = 7, .blocked = 9000});
    s.syscall({.pid = 101, .op = IOLENS_OP_SYNC, .ret = 0, .ino = 7, .blocked = 1000});
    const Report r = build(s);
    EXPECT_EQ(r.totals[IOLENS_OP_STAT].blocked_ns, 300u);
    EXPECT_EQ(r.totals[IOLENS_OP_SYNC].blocked_ns, 10000u);
    EXPECT_EQ(find_process(r, 100)->ops[IOLENS_OP_SYNC].blocked_ns, 9000u);
    EXPECT_EQ(find_file(r, 7)->ops[IOLENS_OP_SYNC].blocked_ns, 10000u);
    EXPECT_EQ(r.page_cache.blocked_ns, 0u);  // only reads count there
}

TEST(PageCacheModel, OldSyscallRecordsAreAcceptedWithoutCacheFigures) {
    Records s;
    s.syscall({.pid = 100, .ret = 4096, .ino = 7, .v1 = true});
    s.syscall({.pid = 100, .ret = 4096, .ino = 7, .cache_in = 4096});  // a new one between
    s.syscall({.pid = 100, .ret = 100, .ino = 7, .v1 = true});
    ASSERT_EQ(s.span().size(), 72u + 104u + 72u);
    ReportBuilder b;
    ASSERT_TRUE(b.add_records(s.span()).ok());
    EXPECT_EQ(b.records_seen(), 3u);
    const Report r = b.finish();
    EXPECT_EQ(r.totals[IOLENS_OP_READ].calls, 3u);
    EXPECT_EQ(r.totals[IOLENS_OP_READ].bytes, 8292u);
    // A v1 read's hits are unknown: it counts neither as hit nor as miss.
    EXPECT_EQ(r.page_cache.hit_bytes, 0u);
    EXPECT_EQ(r.page_cache.miss_bytes, 4096u);
    EXPECT_EQ(find_file(r, 7)->page_cache.miss_bytes, 4096u);
}

TEST(PageCacheModel, OldRecordsAloneGiveNoCacheFiguresAtAll) {
    Records s;
    for (int i = 0; i < 3; ++i) s.syscall({.ret = 4096, .v1 = true});
    const Report r = build(s);
    EXPECT_EQ(r.totals[IOLENS_OP_READ].calls, 3u);
    EXPECT_TRUE(r.page_cache.empty());
    EXPECT_FALSE(r.page_cache.hit_ratio().has_value());
    EXPECT_EQ(r.totals[IOLENS_OP_READ].blocked_ns, 0u);
}

// The kernel side leaves the page-cache fields out of a call during which
// nothing happened in the page cache, and says so with IOLENS_SC_CACHE_ZERO:
// such a read is all hits, unlike an old short record.
TEST(PageCacheModel, ShortRecordsFlaggedCacheZeroAreAllHits) {
    Records s;
    s.syscall({.pid = 100, .ret = 4096, .ino = 7, .extra_flags = IOLENS_SC_CACHE_ZERO, .v1 = true});
    s.syscall({.pid = 100, .ret = 4096, .ino = 7, .cache_in = 4096});
    s.syscall({.pid = 100, .ret = 100, .ino = 7, .extra_flags = IOLENS_SC_CACHE_ZERO, .v1 = true});
    ASSERT_EQ(s.span().size(), 72u + 104u + 72u);
    const Report r = build(s);
    EXPECT_EQ(r.totals[IOLENS_OP_READ].calls, 3u);
    EXPECT_EQ(r.page_cache.hit_bytes, 4196u);
    EXPECT_EQ(r.page_cache.miss_bytes, 4096u);
    EXPECT_EQ(find_file(r, 7)->page_cache.hit_bytes, 4196u);
    EXPECT_EQ(find_process(r, 100)->page_cache.hit_bytes, 4196u);
}

TEST(PageCacheModel, FaultInsCountBytesAndMajorFaults) {
    Records s;
    s.syscall({.pid = 100, .op = IOLENS_OP_MMAP, .ret = 0x7f0000000000, .ino = 9});
    s.pagecache(IOLENS_PC_FAULT_IN, IOLENS_PCF_MAJOR_FAULT, 100, 9, 4096);
    s.pagecache(IOLENS_PC_FAULT_IN, 0, 100, 9, 65536);  // fault-around / readahead
    s.pagecache(IOLENS_PC_FAULT_IN, IOLENS_PCF_MAJOR_FAULT, 100, 9, 16384);
    s.pagecache(IOLENS_PC_FAULT_IN, IOLENS_PCF_MAJOR_FAULT, 102, 11, 4096);  // first seen here
    const Report r = build(s);
    EXPECT_EQ(r.page_cache.fault_bytes, 4096u + 65536 + 16384 + 4096);
    EXPECT_EQ(r.page_cache.major_faults, 3u);
    // Nothing was read through the cache and everything faulted in came
    // from the device: a mmap-only cold job is 0% cached, not 100% or n/a.
    ASSERT_TRUE(r.page_cache.hit_ratio().has_value());
    EXPECT_DOUBLE_EQ(*r.page_cache.hit_ratio(), 0.0);
    EXPECT_EQ(find_process(r, 100)->page_cache.fault_bytes, 86016u);
    EXPECT_EQ(find_process(r, 100)->page_cache.major_faults, 2u);
    ASSERT_NE(find_process(r, 102), nullptr);
    EXPECT_EQ(find_process(r, 102)->page_cache.major_faults, 1u);
    EXPECT_EQ(find_file(r, 9)->page_cache.fault_bytes, 86016u);
    // A file known only through its faults (mapped before the capture) is listed.
    ASSERT_NE(find_file(r, 11), nullptr);
    EXPECT_EQ(find_file(r, 11)->page_cache.fault_bytes, 4096u);
    EXPECT_EQ(r.files_total, 2u);
}

TEST(PageCacheModel, EvictionsCountUnreferencedAsUnusedReadahead) {
    Records s;
    s.syscall({.pid = 100, .ret = 4096, .ino = 7, .cache_in = 131072, .readahead = 126976});
    s.pagecache(IOLENS_PC_EVICT, IOLENS_PCF_UNREFERENCED, 100, 7, 65536);
    s.pagecache(IOLENS_PC_EVICT, 0, 100, 7, 4096);
    s.pagecache(IOLENS_PC_EVICT, IOLENS_PCF_UNREFERENCED, 555, 7, 8192);  // pid never seen
    s.pagecache(IOLENS_PC_EVICT, 0, 0, 12, 4096);                         // no pid
    const Report r = build(s);
    EXPECT_EQ(r.page_cache.evicted_bytes, 65536u + 4096 + 8192 + 4096);
    EXPECT_EQ(r.page_cache.readahead_unused_bytes, 65536u + 8192);
    const FileStats* f7 = find_file(r, 7);
    ASSERT_NE(f7, nullptr);
    EXPECT_EQ(f7->page_cache.evicted_bytes, 77824u);
    EXPECT_EQ(f7->page_cache.readahead_unused_bytes, 73728u);
    EXPECT_EQ(find_file(r, 12)->page_cache.evicted_bytes, 4096u);
    const ProcessStats* p = find_process(r, 100);
    EXPECT_EQ(p->page_cache.evicted_bytes, 69632u);
    EXPECT_EQ(p->page_cache.readahead_unused_bytes, 65536u);
    // Evictions never invent a process.
    EXPECT_EQ(find_process(r, 555), nullptr);
    EXPECT_EQ(find_process(r, 0), nullptr);
    EXPECT_EQ(r.processes.size(), 1u);
}

TEST(PageCacheModel, UnknownKindsAreSkippedAndShortRecordsAreErrors) {
    Records s;
    s.pagecache(99, 0, 100, 7, 4096);
    ReportBuilder b;
    ASSERT_TRUE(b.add_records(s.span()).ok());
    EXPECT_EQ(b.records_skipped(), 1u);
    EXPECT_TRUE(b.finish().page_cache.empty());

    for (uint16_t type : {uint16_t{IOLENS_REC_PAGECACHE}, uint16_t{IOLENS_REC_BLOCK}}) {
        std::vector<std::byte> rec(48, std::byte{0});
        iolens_rec_hdr h{type, 48};
        std::memcpy(rec.data(), &h, sizeof h);
        ReportBuilder short_b;
        const auto r = short_b.add_records(rec);
        ASSERT_FALSE(r.ok()) << type;
        EXPECT_NE(r.error().message.find("shorter than the 56 bytes"), std::string::npos)
            << r.error().message;
    }
    std::vector<std::byte> sc(71, std::byte{0});
    iolens_rec_hdr h{IOLENS_REC_SYSCALL, 71};
    std::memcpy(sc.data(), &h, sizeof h);
    ReportBuilder sb;
    const auto r = sb.add_records(sc);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("shorter than the 72 bytes"), std::string::npos) << r.error().message;
}

TEST(PageCacheModel, MergeAddsEveryField) {
    PageCacheStats a{.hit_bytes = 1,
                     .miss_bytes = 2,
                     .readahead_bytes = 3,
                     .blocked_ns = 8,
                     .direct_bytes = 9,
                     .readahead_unused_bytes = 4,
                     .readahead_unread_bytes = 10,
                     .fault_bytes = 5,
                     .major_faults = 6,
                     .evicted_bytes = 7,
                     .evicted_by_job_bytes = 3};
    const PageCacheStats b{.hit_bytes = 10,
                           .miss_bytes = 20,
                           .readahead_bytes = 30,
                           .blocked_ns = 80,
                           .direct_bytes = 90,
                           .readahead_unused_bytes = 40,
                           .readahead_unread_bytes = 100,
                           .fault_bytes = 50,
                           .major_faults = 60,
                           .evicted_bytes = 70,
                           .evicted_by_job_bytes = 30};
    a.merge(b);
    EXPECT_EQ(a.hit_bytes, 11u);
    EXPECT_EQ(a.miss_bytes, 22u);
    EXPECT_EQ(a.readahead_bytes, 33u);
    EXPECT_EQ(a.readahead_unused_bytes, 44u);
    EXPECT_EQ(a.readahead_unread_bytes, 110u);
    EXPECT_EQ(a.fault_bytes, 55u);
    EXPECT_EQ(a.major_faults, 66u);
    EXPECT_EQ(a.evicted_bytes, 77u);
    EXPECT_EQ(a.blocked_ns, 88u);
    EXPECT_EQ(a.direct_bytes, 99u);
    EXPECT_EQ(a.evicted_by_job_bytes, 33u);
    EXPECT_EQ(a.brought_in(), 22u + 55u);
    EXPECT_DOUBLE_EQ(*a.hit_ratio(), 11.0 / (11.0 + 22.0 + 55.0 + 99.0));
}

TEST(PageCacheModel, TopProcessesAndFilesByBytesBroughtIn) {
    Records s;
    s.syscall({.pid = 100, .ret = 4096, .ino = 7, .cache_in = 4096});
    s.syscall({.pid = 101, .ret = 4096, .ino = 8, .cache_in = 65536});
    s.pagecache(IOLENS_PC_FAULT_IN, 0, 102, 9, 8192);
    s.syscall({.pid = 103, .ret = 4096, .ino = 10});  // all hits: brought nothing in
    const Report r = build(s);
    const auto procs = top_processes_by_cache_in(r, 10);
    ASSERT_EQ(procs.size(), 3u);
    EXPECT_EQ(procs[0]->info.pid, 101u);
    EXPECT_EQ(procs[1]->info.pid, 102u);
    EXPECT_EQ(procs[2]->info.pid, 100u);
    EXPECT_EQ(top_processes_by_cache_in(r, 1).size(), 1u);
    const auto files = top_files_by_cache_in(r, 10);
    ASSERT_EQ(files.size(), 3u);
    EXPECT_EQ(files[0]->ino, 8u);
    EXPECT_EQ(files[1]->ino, 9u);
    EXPECT_EQ(files[2]->ino, 7u);
}
