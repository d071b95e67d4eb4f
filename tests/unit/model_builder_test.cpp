// ReportBuilder on synthetic record streams made of the iolens/abi.h structs.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "iolens/abi.h"
#include "model/report_builder.h"
#include "recording/record_buffer.h"

using namespace iolens::model;

namespace {

constexpr uint32_t kDev = (8u << 20) | 1;  // 8:1

// Appends kernel records to a byte buffer exactly as the ring buffer delivers them.
class Stream {
public:
    struct Call {
        uint32_t pid = 100;
        int op = IOLENS_OP_READ;
        int64_t ret = 0;
        uint64_t requested = 0;
        uint64_t offset = IOLENS_NO_OFFSET;
        uint32_t dev = kDev;
        uint64_t ino = 0;  // 0: no file
        uint64_t duration = 1000;
        uint8_t extra_flags = 0;  // e.g. IOLENS_SC_IOV_TRUNC
        int path = IOLENS_PATH_SYSCALL;
    };

    Stream& call(const Call& c) {
        iolens_syscall_rec r{};
        r.op = static_cast<uint8_t>(c.op);
        r.flags = static_cast<uint8_t>((c.ino ? (IOLENS_SC_HAS_FILE | IOLENS_SC_REGULAR) : 0) |
                                       c.extra_flags | (c.path << IOLENS_SC_PATH_SHIFT));
        r.pid = r.tid = c.pid;
        r.duration_ns = c.duration;
        r.ret = c.ret;
        r.requested = c.requested;
        r.offset = c.offset;
        r.ino = c.ino;
        r.dev = c.ino ? c.dev : 0;
        r.fd = c.ino ? 3 : -1;
        buf.syscall(r);
        return *this;
    }
    // components: leaf first, NUL-separated, as the kernel walk emits them.
    Stream& file(uint64_t ino, const std::string& components, uint8_t flags = 0, uint64_t size = 0,
                 uint32_t dev = kDev) {
        iolens_file_rec r{};
        r.flags = flags;
        r.pid = 100;
        r.dev = dev;
        r.ino = ino;
        r.size = size;
        buf.file(r, components);
        return *this;
    }
    Stream& proc(uint16_t type, uint32_t pid, uint32_t ppid, uint64_t ts, const char* comm,
                 int32_t exit_code = 0) {
        buf.proc(type, pid, ppid, ts, comm, exit_code);
        return *this;
    }
    Stream& exec(uint32_t pid, uint32_t ppid, uint64_t ts, const char* comm, const std::string& args) {
        buf.exec(pid, ppid, ts, comm, args);
        return *this;
    }
    Stream& unknown(uint16_t type, uint16_t size) {
        std::vector<std::byte> r(size, std::byte{0xab});
        iolens_rec_hdr h{type, size};
        std::memcpy(r.data(), &h, sizeof h);
        return raw(r.data(), r.size());
    }
    Stream& raw(const void* p, size_t n) {
        buf.raw(p, n);
        return *this;
    }
    std::span<const std::byte> span(size_t n = SIZE_MAX) const {
        return buf.bytes().first(std::min(n, buf.size()));
    }

    iolens::recording::RecordBuffer buf;
};

Report build(const Stream& s, BuilderOptions o = {}) {
    ReportBuilder b(o);
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

TEST(ReportBuilderSyscalls, ExactTotalsPerProcessAndPerFile) {
    Stream s;
    s.call({.pid = 100,
            .op = IOLENS_OP_READ,
            .ret = 4096,
            .requested = 4096,
            .offset = 0,
            .ino = 7,
            .duration = 500});
    s.call({.pid = 100,
            .op = IOLENS_OP_READ,
            .ret = 100,
            .requested = 4096,
            .offset = 4096,
            .ino = 7,
            .duration = 1500});
    s.call({.pid = 101,
            .op = IOLENS_OP_WRITE,
            .ret = 10,
            .requested = 10,
            .offset = 0,
            .ino = 8,
            .duration = 2000});
    s.call({.pid = 101, .op = IOLENS_OP_STAT, .ret = 0, .duration = 300});  // no file
    const Report r = build(s);

    const auto& rd = r.totals[IOLENS_OP_READ];
    EXPECT_EQ(rd.calls, 2u);
    EXPECT_EQ(rd.errors, 0u);
    EXPECT_EQ(rd.bytes, 4196u);
    EXPECT_EQ(rd.requested_bytes, 8192u);
    EXPECT_EQ(rd.time_ns, 2000u);
    EXPECT_EQ(rd.latency_ns.count(), 2u);
    EXPECT_EQ(rd.latency_ns.max(), 1500u);
    EXPECT_EQ(rd.size_bytes.count(), 2u);
    EXPECT_EQ(rd.size_bytes.min(), 100u);
    EXPECT_EQ(rd.size_bytes.max(), 4096u);
    EXPECT_EQ(r.totals[IOLENS_OP_WRITE].bytes, 10u);
    EXPECT_EQ(r.totals[IOLENS_OP_STAT].calls, 1u);
    EXPECT_EQ(r.totals[IOLENS_OP_STAT].size_bytes.count(), 0u);  // moves no bytes
    EXPECT_EQ(r.totals[IOLENS_OP_OPEN].calls, 0u);

    ASSERT_EQ(r.processes.size(), 2u);
    EXPECT_EQ(r.processes[0].info.pid, 100u);  // sorted by pid
    EXPECT_EQ(r.processes[0].ops[IOLENS_OP_READ].bytes, 4196u);
    EXPECT_EQ(r.processes[0].ops[IOLENS_OP_WRITE].calls, 0u);
    EXPECT_EQ(r.processes[1].info.pid, 101u);
    EXPECT_EQ(r.processes[1].ops[IOLENS_OP_WRITE].bytes, 10u);
    EXPECT_EQ(r.processes[1].ops[IOLENS_OP_STAT].calls, 1u);

    ASSERT_EQ(r.files.size(), 2u);  // the stat had no file
    EXPECT_EQ(r.files_total, 2u);
    EXPECT_EQ(r.files_omitted, 0u);
    EXPECT_EQ(r.files[0].ino, 7u);  // most bytes first
    EXPECT_EQ(r.files[0].dev, kDev);
    EXPECT_EQ(r.files[0].ops[IOLENS_OP_READ].calls, 2u);
    EXPECT_EQ(r.files[0].ops[IOLENS_OP_READ].bytes, 4196u);
    EXPECT_EQ(r.files[1].ops[IOLENS_OP_WRITE].calls, 1u);
}

TEST(ReportBuilderSyscalls, DataPathsSplitTheClassesExactly) {
    Stream s;
    // A plain read of file 7, then a copy call: a read of 7 and a write of 8.
    s.call({.pid = 100,
            .op = IOLENS_OP_READ,
            .ret = 4096,
            .requested = 4096,
            .offset = 0,
            .ino = 7,
            .duration = 500});
    s.call({.pid = 100,
            .op = IOLENS_OP_READ,
            .ret = 65536,
            .requested = 65536,
            .offset = 4096,
            .ino = 7,
            .duration = 900,
            .path = IOLENS_PATH_COPY});
    s.call({.pid = 100,
            .op = IOLENS_OP_WRITE,
            .ret = 65536,
            .requested = 65536,
            .offset = 0,
            .ino = 8,
            .duration = 900,
            .path = IOLENS_PATH_COPY});
    // An AIO read that failed, of process 101.
    s.call({.pid = 101,
            .op = IOLENS_OP_READ,
            .ret = -5,
            .requested = 4096,
            .offset = 0,
            .ino = 9,
            .duration = 2000,
            .path = IOLENS_PATH_AIO});
    const Report r = build(s);

    EXPECT_EQ(r.totals[IOLENS_OP_READ].calls, 3u);
    EXPECT_EQ(r.totals[IOLENS_OP_READ].bytes, 4096u + 65536u);
    const auto& sys = r.paths.by[IOLENS_PATH_SYSCALL];
    const auto& copy = r.paths.by[IOLENS_PATH_COPY];
    const auto& aio = r.paths.by[IOLENS_PATH_AIO];
    EXPECT_EQ(sys[IOLENS_OP_READ].calls, 1u);
    EXPECT_EQ(sys[IOLENS_OP_READ].bytes, 4096u);
    EXPECT_EQ(sys[IOLENS_OP_READ].time_ns, 500u);
    EXPECT_EQ(copy[IOLENS_OP_READ].calls, 1u);
    EXPECT_EQ(copy[IOLENS_OP_READ].bytes, 65536u);
    EXPECT_EQ(copy[IOLENS_OP_WRITE].bytes, 65536u);
    EXPECT_EQ(sys[IOLENS_OP_WRITE].calls, 0u);
    EXPECT_EQ(aio[IOLENS_OP_READ].calls, 1u);
    EXPECT_EQ(aio[IOLENS_OP_READ].errors, 1u);
    EXPECT_EQ(aio[IOLENS_OP_READ].bytes, 0u);
    EXPECT_EQ(aio[IOLENS_OP_READ].requested_bytes, 4096u);
    EXPECT_TRUE(r.paths.any_other_path());

    const auto* p100 = find_process(r, 100);
    ASSERT_NE(p100, nullptr);
    EXPECT_EQ(p100->paths.by[IOLENS_PATH_COPY][IOLENS_OP_READ].calls, 1u);
    EXPECT_EQ(p100->paths.by[IOLENS_PATH_SYSCALL][IOLENS_OP_READ].calls, 1u);
    EXPECT_EQ(p100->paths.by[IOLENS_PATH_AIO][IOLENS_OP_READ].calls, 0u);
    const auto* f7 = find_file(r, 7);
    const auto* f8 = find_file(r, 8);
    ASSERT_NE(f7, nullptr);
    ASSERT_NE(f8, nullptr);
    EXPECT_EQ(f7->paths.by[IOLENS_PATH_COPY][IOLENS_OP_READ].bytes, 65536u);
    EXPECT_EQ(f7->paths.by[IOLENS_PATH_SYSCALL][IOLENS_OP_READ].bytes, 4096u);
    EXPECT_EQ(f8->paths.by[IOLENS_PATH_COPY][IOLENS_OP_WRITE].calls, 1u);
    EXPECT_EQ(f8->paths.by[IOLENS_PATH_SYSCALL][IOLENS_OP_WRITE].calls, 0u);
    // The copy continued the plain read: sequential.
    EXPECT_EQ(f7->sequential, 2u);
}

TEST(ReportBuilderSyscalls, OnlySyscallsMeansNoOtherPath) {
    Stream s;
    s.call({.pid = 100, .op = IOLENS_OP_READ, .ret = 4096, .requested = 4096, .offset = 0, .ino = 7});
    const Report r = build(s);
    EXPECT_FALSE(r.paths.any_other_path());
    EXPECT_EQ(r.paths.by[IOLENS_PATH_SYSCALL][IOLENS_OP_READ].calls, 1u);
    EXPECT_FALSE(r.files[0].paths.any_other_path());
}

TEST(ReportBuilderSyscalls, ErrorsCountButMoveNoBytes) {
    Stream s;
    s.call({.op = IOLENS_OP_READ, .ret = -5, .requested = 4096, .offset = 0, .ino = 7});
    s.call({.op = IOLENS_OP_OPEN, .ret = -2});
    const Report r = build(s);
    const auto& rd = r.totals[IOLENS_OP_READ];
    EXPECT_EQ(rd.calls, 1u);
    EXPECT_EQ(rd.errors, 1u);
    EXPECT_EQ(rd.bytes, 0u);
    EXPECT_EQ(rd.requested_bytes, 4096u);  // asked for, even though it failed
    EXPECT_EQ(rd.size_bytes.count(), 0u);
    EXPECT_EQ(rd.latency_ns.count(), 1u);
    EXPECT_EQ(r.totals[IOLENS_OP_OPEN].errors, 1u);
    EXPECT_EQ(r.files[0].sequential + r.files[0].random, 0u);  // failed calls are neither
}

TEST(ReportBuilderSyscalls, RequestedIsNeverBelowReturnedWithMoreThan16Iovecs) {
    // A readv of 20 x 4 KiB: the kernel side summed the first 16 iovecs
    // (65536) and flagged it; 81920 came back, so 81920 was asked for.
    Stream s;
    s.call({.op = IOLENS_OP_READ,
            .ret = 81920,
            .requested = 65536,
            .offset = 0,
            .ino = 7,
            .extra_flags = IOLENS_SC_IOV_TRUNC});
    // Truncated but short: the lower bound stays as summed.
    s.call({.op = IOLENS_OP_READ,
            .ret = 100,
            .requested = 65536,
            .offset = 81920,
            .ino = 7,
            .extra_flags = IOLENS_SC_IOV_TRUNC});
    const Report r = build(s);
    EXPECT_EQ(r.totals[IOLENS_OP_READ].bytes, 81920u + 100);
    EXPECT_EQ(r.totals[IOLENS_OP_READ].requested_bytes, 81920u + 65536);
    EXPECT_GE(r.totals[IOLENS_OP_READ].requested_bytes, r.totals[IOLENS_OP_READ].bytes);
}

TEST(ReportBuilderSyscalls, MmapMovesNoBytesItsLengthIsRequestedReaddirTheReturn) {
    Stream s;
    s.call({.op = IOLENS_OP_MMAP, .ret = 0x7f0000000000, .requested = 1 << 20, .offset = 0, .ino = 9});
    s.call({.op = IOLENS_OP_READDIR, .ret = 600, .requested = 32768});
    s.call({.op = IOLENS_OP_READ, .ret = 0, .requested = 4096, .offset = 8192, .ino = 9});  // EOF
    const Report r = build(s);
    // A mapping moves nothing itself: its length is what was asked for, and
    // what it brings in is the page cache's fault_bytes.
    EXPECT_EQ(r.totals[IOLENS_OP_MMAP].bytes, 0u);
    EXPECT_EQ(r.totals[IOLENS_OP_MMAP].requested_bytes, 1u << 20);
    EXPECT_EQ(r.totals[IOLENS_OP_MMAP].size_bytes.count(), 0u);
    EXPECT_EQ(r.totals[IOLENS_OP_READDIR].bytes, 600u);
    EXPECT_EQ(r.totals[IOLENS_OP_READDIR].requested_bytes, 32768u);
    EXPECT_EQ(r.totals[IOLENS_OP_READ].bytes, 0u);
    EXPECT_EQ(r.totals[IOLENS_OP_READ].size_bytes.count(), 1u);  // a 0-byte read is a sample
    const FileStats* f = find_file(r, 9);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->sequential + f->random, 0u);  // mmap is not classified, nor a 0-byte read
}

TEST(ReportBuilderSyscalls, SequentialAndRandomPerProcess) {
    Stream s;
    // pid 100 streams file 7 from 0; pid 101 reads the same file from 1 MiB
    // in its own sequence. Interleaved, each stays sequential.
    s.call({.pid = 100, .ret = 4096, .requested = 4096, .offset = 0, .ino = 7});  // seq (first, at 0)
    s.call(
        {.pid = 101, .ret = 4096, .requested = 4096, .offset = 1 << 20, .ino = 7});  // random (first, not 0)
    s.call({.pid = 100, .ret = 4096, .requested = 4096, .offset = 4096, .ino = 7});  // seq
    s.call({.pid = 101, .ret = 4096, .requested = 4096, .offset = (1 << 20) + 4096, .ino = 7});  // seq
    s.call({.pid = 100, .ret = 100, .requested = 4096, .offset = 8192, .ino = 7});  // seq (short)
    s.call(
        {.pid = 100, .ret = 10, .requested = 10, .offset = 8292, .ino = 7});  // seq: continues the short read
    s.call({.pid = 100, .ret = 10, .requested = 10, .offset = 0, .ino = 7});  // seq: a new pass from 0
    s.call({.pid = 100, .ret = 10, .requested = 10, .offset = 5, .ino = 7});  // random: went back
    s.call({.pid = 100,
            .op = IOLENS_OP_WRITE,
            .ret = 5,
            .requested = 5,
            .offset = 15,
            .ino = 7});  // seq: writes share the position
    s.call({.pid = 100, .ret = 10, .requested = 10, .offset = IOLENS_NO_OFFSET, .ino = 7});  // not classified
    s.call({.pid = 100, .op = IOLENS_OP_SEEK, .ret = 0, .offset = 0, .ino = 7});             // not classified
    const Report r = build(s);
    ASSERT_EQ(r.files.size(), 1u);
    EXPECT_EQ(r.files[0].sequential, 7u);
    EXPECT_EQ(r.files[0].random, 2u);
}

TEST(ReportBuilderSyscalls, ProcessFirstSeenBySyscallHasOnlyItsPid) {
    Stream s;
    s.call({.pid = 4242, .op = IOLENS_OP_CLOSE});
    const Report r = build(s);
    ASSERT_EQ(r.processes.size(), 1u);
    const auto& p = r.processes[0].info;
    EXPECT_EQ(p.pid, 4242u);
    EXPECT_EQ(p.ppid, 0u);
    EXPECT_TRUE(p.comm.empty());
    EXPECT_TRUE(p.cmdline.empty());
    EXPECT_FALSE(p.exit_code.has_value());
}

TEST(ReportBuilderSyscalls, UnknownOpIsSkippedNotCounted) {
    Stream s;
    s.call({.op = IOLENS_OP_COUNT + 3, .ret = 1});
    ReportBuilder b;
    ASSERT_TRUE(b.add_records(s.span()).ok());
    EXPECT_EQ(b.records_seen(), 1u);
    EXPECT_EQ(b.records_skipped(), 1u);
    const Report r = b.finish();
    for (const auto& op : r.totals) EXPECT_EQ(op.calls, 0u);
}

TEST(ReportBuilderFiles, PathIsReversedFromLeafFirstComponents) {
    Stream s;
    s.file(7, std::string("c.bin\0data\0home\0", 16), 0, 12345);
    s.call({.ret = 1, .requested = 1, .offset = 0, .ino = 7});
    const Report r = build(s);
    ASSERT_EQ(r.files.size(), 1u);
    EXPECT_EQ(r.files[0].path, "/home/data/c.bin");
    EXPECT_EQ(r.files[0].size, 12345u);
}

TEST(ReportBuilderFiles, TruncatedWalkIsMarked) {
    Stream s;
    s.file(7, std::string("c.bin\0data\0", 11), IOLENS_FILE_TRUNCATED);
    s.call({.ret = 1, .requested = 1, .offset = 0, .ino = 7});
    const Report r = build(s);
    EXPECT_EQ(r.files[0].path, ".../data/c.bin");
}

TEST(ReportBuilderFiles, LatestNameWinsAndMissingFinalNulIsTolerated) {
    Stream s;
    s.file(7, std::string("old\0tmp\0", 8), 0, 1);
    s.call({.ret = 1, .requested = 1, .offset = 0, .ino = 7});
    s.file(7, std::string("new\0tmp", 7), 0, 2);
    const Report r = build(s);
    EXPECT_EQ(r.files[0].path, "/tmp/new");
    EXPECT_EQ(r.files[0].size, 2u);
}

TEST(ReportBuilderFiles, UnnamedFileAndSameInodeOnAnotherDevice) {
    Stream s;
    s.call({.ret = 10, .requested = 10, .offset = 0, .ino = 5});
    s.call({.ret = 20, .requested = 20, .offset = 0, .dev = (259u << 20) | 3, .ino = 5});
    const Report r = build(s);
    ASSERT_EQ(r.files.size(), 2u);  // (dev, ino) identifies a file, not ino alone
    EXPECT_EQ(r.files[0].path, "<dev 259:3 ino 5>");
    EXPECT_EQ(r.files[1].path, "<dev 8:1 ino 5>");
    EXPECT_EQ(iolens::recording::dev_major(r.files[0].dev), 259u);
    EXPECT_EQ(iolens::recording::dev_minor(r.files[0].dev), 3u);
}

TEST(ReportBuilderFiles, NamedButUntouchedFilesAreNotListed) {
    Stream s;
    s.file(7, std::string("a\0", 2));
    const Report r = build(s);
    EXPECT_TRUE(r.files.empty());
    EXPECT_EQ(r.files_total, 0u);
}

TEST(ReportBuilderFiles, SortedByBytesThenPathAndCapped) {
    Stream s;
    s.file(1, std::string("b\0", 2)).file(2, std::string("a\0", 2)).file(3, std::string("c\0", 2));
    s.call({.ret = 10, .requested = 10, .offset = 0, .ino = 1});
    s.call({.ret = 10, .requested = 10, .offset = 0, .ino = 2});
    s.call({.op = IOLENS_OP_WRITE, .ret = 50, .requested = 50, .offset = 0, .ino = 3});
    s.call({.op = IOLENS_OP_STAT, .ret = 0, .ino = 4});
    const Report all = build(s);
    ASSERT_EQ(all.files.size(), 4u);
    EXPECT_EQ(all.files[0].path, "/c");
    EXPECT_EQ(all.files[1].path, "/a");  // tie on bytes: by path
    EXPECT_EQ(all.files[2].path, "/b");
    EXPECT_EQ(all.files[3].ino, 4u);

    const Report capped = build(s, {.max_files = 2});
    ASSERT_EQ(capped.files.size(), 2u);
    EXPECT_EQ(capped.files[0].path, "/c");
    EXPECT_EQ(capped.files[1].path, "/a");
    EXPECT_EQ(capped.files_total, 4u);
    EXPECT_EQ(capped.files_omitted, 2u);
    // The totals still count the omitted files.
    EXPECT_EQ(capped.totals[IOLENS_OP_READ].bytes, 20u);
}

// The listed files' tables are made from the DL log at the end
// (report_builder.cpp, FileAccum); without the log they are kept as calls
// come. Both give the same tables, also with files left out of the list.
TEST(ReportBuilderFiles, TablesFromTheLogEqualTablesKeptLive) {
    Stream s;
    std::mt19937 rng(3);
    for (uint64_t ino = 1; ino <= 40; ++ino) s.file(ino, "f" + std::to_string(ino) + std::string(1, '\0'));
    // The first 2,000 calls on 7 files only: with max_files 7, their tables
    // are kept live, then dropped when an eighth file makes a call and made
    // from the log (State::drop_live).
    for (int i = 0; i < 5000; ++i) {
        const uint64_t ino = 1 + rng() % (i < 2000 ? 7 : 40);
        const int op = std::array{IOLENS_OP_READ, IOLENS_OP_READ, IOLENS_OP_WRITE, IOLENS_OP_OPEN,
                                  IOLENS_OP_STAT}[rng() % 5];
        const bool moves = op == IOLENS_OP_READ || op == IOLENS_OP_WRITE;
        const int64_t ret = rng() % 17 == 0 ? -5 : moves ? static_cast<int64_t>(rng() % 70000) : 0;
        s.call({.pid = 100 + static_cast<uint32_t>(rng() % 3),
                .op = op,
                .ret = ret,
                .requested = moves ? 70000u : 0u,
                .offset = moves ? (rng() % 100) * 4096 : IOLENS_NO_OFFSET,
                .ino = ino,
                .duration = 100 + rng() % 100000,
                .path = rng() % 4 == 0 ? IOLENS_PATH_COPY : IOLENS_PATH_SYSCALL});
    }
    for (size_t max_files : {size_t{40}, size_t{7}, size_t{1}}) {
        const Report logged = build(s, {.max_files = max_files, .dl_attribution = true});
        const Report live = build(s, {.max_files = max_files, .dl_attribution = false});
        ASSERT_EQ(logged.files.size(), max_files);
        ASSERT_EQ(live.files.size(), max_files);
        for (size_t i = 0; i < max_files; ++i) {
            const FileStats &a = logged.files[i], &b = live.files[i];
            ASSERT_EQ(a.ino, b.ino) << i;
            for (int op = 0; op < kOpCount; ++op) {
                EXPECT_EQ(a.ops[op].calls, b.ops[op].calls);
                EXPECT_EQ(a.ops[op].errors, b.ops[op].errors);
                EXPECT_EQ(a.ops[op].bytes, b.ops[op].bytes);
                EXPECT_EQ(a.ops[op].requested_bytes, b.ops[op].requested_bytes);
                EXPECT_EQ(a.ops[op].time_ns, b.ops[op].time_ns);
                EXPECT_TRUE(a.ops[op].latency_ns == b.ops[op].latency_ns);
                EXPECT_TRUE(a.ops[op].size_bytes == b.ops[op].size_bytes);
                for (int p = 0; p < kPathCount; ++p) {
                    EXPECT_EQ(a.paths.by[p][op].calls, b.paths.by[p][op].calls) << p << " " << op;
                    EXPECT_EQ(a.paths.by[p][op].bytes, b.paths.by[p][op].bytes) << p << " " << op;
                }
            }
            EXPECT_GT(a.ops[IOLENS_OP_READ].calls, 0u);
            EXPECT_EQ(a.sequential, b.sequential);
            EXPECT_EQ(a.random, b.random);
        }
        EXPECT_EQ(logged.files_total, 40u);
    }
}

TEST(ReportBuilderProcesses, ForkExecExit) {
    Stream s;
    s.exec(100, 1, 10, "python3", std::string("python3\0train.py\0--epochs\0\0", 27));
    s.proc(IOLENS_REC_FORK, 200, 100, 20, "python3");
    s.call({.pid = 200, .ret = 1, .requested = 1});
    s.proc(IOLENS_REC_FORK, 300, 100, 25, "python3");
    s.exec(300, 100, 30, "sh", std::string("sh\0-c\0ls", 8));
    s.proc(IOLENS_REC_EXIT, 200, 100, 40, "pt_data_worker", 256);
    const Report r = build(s);
    ASSERT_EQ(r.processes.size(), 3u);

    const auto* parent = find_process(r, 100);
    ASSERT_NE(parent, nullptr);
    EXPECT_EQ(parent->info.comm, "python3");
    EXPECT_EQ(parent->info.ppid, 1u);
    EXPECT_EQ(parent->info.start_ns, 10u);
    // An empty argument is kept; the final NUL only ends the last one.
    EXPECT_EQ(parent->info.cmdline, (std::vector<std::string>{"python3", "train.py", "--epochs", ""}));

    const auto* worker = find_process(r, 200);
    ASSERT_NE(worker, nullptr);
    EXPECT_EQ(worker->info.ppid, 100u);
    EXPECT_EQ(worker->info.start_ns, 20u);
    EXPECT_EQ(worker->info.cmdline, parent->info.cmdline);  // inherited at fork
    EXPECT_EQ(worker->info.comm, "python3");
    EXPECT_EQ(worker->info.end_ns, 40u);
    ASSERT_TRUE(worker->info.exit_code.has_value());
    EXPECT_EQ(*worker->info.exit_code, 256);
    EXPECT_EQ(worker->ops[IOLENS_OP_READ].calls, 1u);

    const auto* shell = find_process(r, 300);
    ASSERT_NE(shell, nullptr);
    EXPECT_EQ(shell->info.comm, "sh");
    EXPECT_EQ(shell->info.start_ns, 25u);  // fork time, not exec time
    EXPECT_EQ(shell->info.cmdline, (std::vector<std::string>{"sh", "-c", "ls"}));
    EXPECT_EQ(shell->info.end_ns, 0u);
}

TEST(ReportBuilderProcesses, FullLengthCommAndReusedPid) {
    Stream s;
    s.proc(IOLENS_REC_FORK, 500, 1, 10, "0123456789abcdef");  // 16 bytes, no NUL
    s.call({.pid = 500, .ret = 10, .requested = 10});
    s.proc(IOLENS_REC_EXIT, 500, 1, 20, "0123456789abcdef", 0);
    s.proc(IOLENS_REC_FORK, 500, 1, 30, "second");
    s.call({.pid = 500, .ret = 1, .requested = 1});
    const Report r = build(s);
    ASSERT_EQ(r.processes.size(), 2u);
    EXPECT_EQ(r.processes[0].info.comm, "0123456789abcdef");
    EXPECT_EQ(r.processes[0].info.end_ns, 20u);
    EXPECT_EQ(r.processes[0].ops[IOLENS_OP_READ].bytes, 10u);
    EXPECT_EQ(r.processes[1].info.comm, "second");
    EXPECT_EQ(r.processes[1].info.start_ns, 30u);
    EXPECT_EQ(r.processes[1].ops[IOLENS_OP_READ].bytes, 1u);
}

TEST(ReportBuilderProcesses, AddProcessRegistersAndKeepsCounts) {
    ReportBuilder b;
    ProcessInfo info;
    info.pid = 77;
    info.ppid = 1;
    info.comm = "trainer";
    info.cmdline = {"trainer", "--fast"};
    b.add_process(info);
    Stream s;
    s.call({.pid = 77, .ret = 3, .requested = 3});
    ASSERT_TRUE(b.add_records(s.span()).ok());
    b.add_process(info);  // again, later: counts survive
    ProcessInfo idle;
    idle.pid = 78;
    b.add_process(idle);
    const Report r = b.finish();
    ASSERT_EQ(r.processes.size(), 2u);
    EXPECT_EQ(r.processes[0].info.comm, "trainer");
    EXPECT_EQ(r.processes[0].info.cmdline.size(), 2u);
    EXPECT_EQ(r.processes[0].ops[IOLENS_OP_READ].bytes, 3u);
    EXPECT_EQ(r.processes[1].info.pid, 78u);
}

TEST(ReportBuilderStream, CaptureIsCopiedToTheReport) {
    ReportBuilder b;
    CaptureInfo c;
    c.command = {"python3", "train.py"};
    c.events = 99;
    c.partial = true;
    b.set_capture(c);
    const Report r = b.finish();
    EXPECT_EQ(r.capture.command, c.command);
    EXPECT_EQ(r.capture.events, 99u);
    EXPECT_TRUE(r.capture.partial);
}

TEST(ReportBuilderStream, UnknownRecordTypeIsSkippedBySize) {
    Stream s;
    s.call({.ret = 1, .requested = 1});
    s.unknown(99, 13);  // odd size: what follows is misaligned, which must not matter
    s.call({.ret = 2, .requested = 2});
    ReportBuilder b;
    ASSERT_TRUE(b.add_records(s.span()).ok());
    EXPECT_EQ(b.records_seen(), 3u);
    EXPECT_EQ(b.records_skipped(), 1u);
    EXPECT_EQ(b.finish().totals[IOLENS_OP_READ].bytes, 3u);
}

TEST(ReportBuilderStream, SplitAcrossCallsEqualsOneCall) {
    Stream s;
    for (int i = 0; i < 10; ++i)
        s.call({.pid = 100u + i % 3, .ret = 4096, .requested = 4096, .offset = uint64_t(i) * 4096, .ino = 7});
    ReportBuilder b;
    size_t prev = 0;
    for (size_t end : s.buf.boundaries()) {
        ASSERT_TRUE(b.add_records(s.span(end).subspan(prev)).ok());
        prev = end;
    }
    const Report split = b.finish();
    const Report whole = build(s);
    EXPECT_EQ(split.totals[IOLENS_OP_READ].bytes, whole.totals[IOLENS_OP_READ].bytes);
    EXPECT_EQ(split.totals[IOLENS_OP_READ].latency_ns, whole.totals[IOLENS_OP_READ].latency_ns);
    EXPECT_EQ(split.files[0].sequential, whole.files[0].sequential);
    EXPECT_EQ(split.files[0].random, whole.files[0].random);
}

TEST(ReportBuilderMalformed, EveryTruncationPointIsAnErrorWithItsOffset) {
    Stream s;
    s.exec(100, 1, 1, "python3", std::string("python3\0x\0", 10));
    s.file(7, std::string("c.bin\0data\0", 11));
    s.call({.ret = 1, .requested = 1, .offset = 0, .ino = 7});
    s.proc(IOLENS_REC_FORK, 200, 100, 2, "w");
    s.unknown(77, 9);
    s.proc(IOLENS_REC_EXIT, 200, 100, 3, "w");
    for (size_t cut = 0; cut <= s.buf.size(); ++cut) {
        ReportBuilder b;
        const auto r = b.add_records(s.span(cut));
        // The record the cut falls into starts at the last boundary <= cut.
        size_t start = 0, complete = 0;
        for (size_t end : s.buf.boundaries())
            if (end <= cut) start = end, ++complete;
        EXPECT_EQ(b.records_seen(), complete) << "cut at " << cut;
        if (cut == start) {
            EXPECT_TRUE(r.ok()) << "cut at " << cut << ": " << r.error().message;
        } else {
            ASSERT_FALSE(r.ok()) << "cut at " << cut;
            EXPECT_NE(r.error().message.find("byte offset " + std::to_string(start) + " "), std::string::npos)
                << r.error().message;
        }
        (void)b.finish();  // what was processed is still usable
    }
}

TEST(ReportBuilderMalformed, ZeroSizeIsAnErrorNotALoop) {
    Stream s;
    s.call({.ret = 1, .requested = 1});
    iolens_rec_hdr zero{IOLENS_REC_SYSCALL, 0};
    s.raw(&zero, sizeof zero);
    s.call({.ret = 1, .requested = 1});
    ReportBuilder b;
    const auto r = b.add_records(s.span());
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().message.find("byte offset " + std::to_string(sizeof(iolens_syscall_rec)) + " "),
              std::string::npos)
        << r.error().message;
    EXPECT_EQ(b.records_seen(), 1u);
    EXPECT_EQ(b.finish().totals[IOLENS_OP_READ].calls, 1u);  // the record before is kept
}

TEST(ReportBuilderMalformed, KnownTypeShorterThanItsLayout) {
    for (uint16_t type :
         {IOLENS_REC_SYSCALL, IOLENS_REC_FILE, IOLENS_REC_FORK, IOLENS_REC_EXEC, IOLENS_REC_EXIT}) {
        Stream s;
        s.unknown(type, 12);  // a header and 8 bytes: too short for every known type
        ReportBuilder b;
        const auto r = b.add_records(s.span());
        ASSERT_FALSE(r.ok()) << "type " << type;
        EXPECT_NE(r.error().message.find("byte offset 0 "), std::string::npos);
    }
}

TEST(ReportBuilderMalformed, LengthFieldsMustFitTheRecord) {
    {
        Stream s;
        s.file(7, std::string("abc\0", 4));
        uint16_t bad_len = 200;  // record still 52 bytes
        std::memcpy(s.buf.data().data() + offsetof(iolens_file_rec, path_len), &bad_len, sizeof bad_len);
        ReportBuilder b;
        const auto r = b.add_records(s.span());
        ASSERT_FALSE(r.ok());
        EXPECT_NE(r.error().message.find("200-byte path"), std::string::npos) << r.error().message;
    }
    {
        Stream s;
        s.exec(1, 0, 0, "x", std::string("x\0", 2));
        uint16_t bad_len = 2000;  // above IOLENS_ARGS_BYTES too
        std::memcpy(s.buf.data().data() + offsetof(iolens_exec_rec, args_len), &bad_len, sizeof bad_len);
        ReportBuilder b;
        const auto r = b.add_records(s.span());
        ASSERT_FALSE(r.ok());
        EXPECT_NE(r.error().message.find("2000 bytes of arguments"), std::string::npos) << r.error().message;
    }
}

TEST(ReportBuilderMalformed, LongerRecordsOfKnownTypesAreAccepted) {
    // Structs grow at their end (abi.h): an older reader reads the prefix it knows.
    Stream s;
    iolens_syscall_rec r{};
    r.op = IOLENS_OP_READ;
    r.pid = 1;
    r.ret = 8;
    std::vector<std::byte> bigger(sizeof r + 8);
    r.hdr = {IOLENS_REC_SYSCALL, static_cast<uint16_t>(bigger.size())};
    std::memcpy(bigger.data(), &r, sizeof r);
    s.raw(bigger.data(), bigger.size());
    s.call({.ret = 1});
    const Report rep = build(s);
    EXPECT_EQ(rep.totals[IOLENS_OP_READ].calls, 2u);
    EXPECT_EQ(rep.totals[IOLENS_OP_READ].bytes, 9u);
}

TEST(ReportBuilderMalformed, RandomGarbageNeverCrashes) {
    // Mutated valid streams: flipped bytes in headers and length fields must
    // end in an Error or a report, never in a crash or an out-of-bounds read
    // (run under ASan to see the latter).
    Stream s;
    s.exec(100, 1, 1, "python3", std::string("python3\0x\0", 10));
    s.file(7, std::string("c.bin\0data\0", 11));
    s.call({.ret = 1, .requested = 1, .offset = 0, .ino = 7});
    s.proc(IOLENS_REC_EXIT, 100, 1, 3, "python3");
    std::mt19937 rng(1);
    for (int i = 0; i < 2000; ++i) {
        std::vector<std::byte> bytes = s.buf.data();
        for (int k = 0; k < 4; ++k) bytes[rng() % bytes.size()] = static_cast<std::byte>(rng());
        ReportBuilder b;
        (void)b.add_records(bytes);
        const Report r = b.finish();
        EXPECT_LE(r.files.size(), r.files_total);
    }
}
