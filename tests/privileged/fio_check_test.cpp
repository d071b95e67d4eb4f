// Outside check (ctest -R '^OutsideCheck/'): fio (Debian's) reads with the
// psync, pvsync2, libaio, io_uring and mmap engines, sequentially and at
// random, buffered and O_DIRECT, two jobs; iolens's request count and bytes
// for the file(s) must equal fio's own total_ios and io_bytes, on the path the
// engine uses (syscall, aio, io_uring); with O_DIRECT the block bytes charged
// to fio's processes equal fio's bytes. The mmap engine makes no read call: it
// copies from a mapping of the file, so each job reads its own file and the
// bytes its page faults brought into the cache (page_cache.fault_bytes of
// that file; the file is cold) equal that job's io_bytes, with no read call
// on the file, and the file's major faults equal the job's (fio's majf). (mmap with O_DIRECT is no valid
// fio job.)
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "support.h"

namespace iolens::test {
namespace {

struct FioCase {
    const char* engine;
    const char* rw;  // read, randread
    int direct;
    const char* path;  // the data path iolens must count it under ("mmap": page faults)
    int iodepth = 4;
};

class FioCheck : public ::testing::TestWithParam<FioCase> {};

// Bytes read by every whole disk so far (/proc/diskstats, field 6 in sectors).
uint64_t disk_read_bytes() {
    std::ifstream in("/proc/diskstats");
    uint64_t total = 0;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream f(line);
        unsigned major, minor;
        std::string name;
        uint64_t reads, merged, sectors;
        if (f >> major >> minor >> name >> reads >> merged >> sectors && name.rfind("vd", 0) == 0 &&
            name.size() == 3)
            total += sectors * 512;
    }
    return total;
}

const nlohmann::json* file_in(const nlohmann::json& report, const std::string& path) {
    for (const auto& x : report["files"])
        if (x["path"] == path) return &x;
    return nullptr;
}

// mmap: each of the two jobs reads its own file (check.0.0, check.1.0) through
// a mapping; the pages its faults brought in are its bytes, and no read call.
void expect_mmap_faults(const TempDir& dir, const nlohmann::json& fio, const nlohmann::json& j) {
    ASSERT_EQ(fio["jobs"].size(), 2u);
    for (size_t n = 0; n < 2; ++n) {
        const std::string file = dir / ("check." + std::to_string(n) + ".0");
        const nlohmann::json* f = file_in(j, file);
        ASSERT_NE(f, nullptr) << file << " not in the report";
        EXPECT_EQ((*f)["page_cache"]["fault_bytes"], fio["jobs"][n]["read"]["io_bytes"]) << file;
        // And its major faults are the job's (getrusage): 1 for a sequential
        // read (readahead brings the rest), one per 4 KiB page at random
        // (fio's MADV_RANDOM: no readahead), when nothing else of the job's
        // was faulted in from the disk (fio's binary and libraries are cached
        // by the warm-up run).
        EXPECT_EQ((*f)["page_cache"]["major_faults"], fio["jobs"][n]["majf"]) << file;
        EXPECT_EQ((*f)["ops"]["read"]["calls"], 0u) << file;
        EXPECT_GE((*f)["ops"]["mmap"]["calls"].get<uint64_t>(), 1u) << file;
    }
}

TEST_P(FioCheck, RequestsAndBytesPerFileEqualFios) {
    if (!is_root()) GTEST_SKIP() << "needs root (CAP_BPF, CAP_PERFMON) to load BPF programs";
    if (access("/usr/bin/fio", X_OK) != 0)
        GTEST_SKIP() << "no /usr/bin/fio (tools/install-deps.sh installs it)";
    const FioCase c = GetParam();
    const bool mmap = std::string(c.path) == "mmap";
    TempDir dir;
    const std::string file = dir / (mmap ? "check.0.0" : "fio.bin");
    ASSERT_EQ(run({workload_bin(), "make-file", "--file", file, "--size", "2m"}).exit_status, 0);
    if (mmap)
        ASSERT_EQ(run({workload_bin(), "make-file", "--file", dir / "check.1.0", "--size", "2m"}).exit_status,
                  0);
    // fio untraced first, the same job on 64 KiB: the code it runs (its
    // binary, the engine's libraries: libaio, liburing, and the ones it maps
    // for other engines) is then in the page cache, so the block reads charged
    // to the traced fio are its data's alone (a cold libaio run read 212 KiB
    // of them; a warm-up of another job shape left the traced parent to fault
    // in up to 1.7 MiB of library code under load).
    const std::string warm_file = dir / (mmap ? "warm" : "warm.bin");
    ASSERT_EQ(
        run({"/usr/bin/fio", "--name=warm", mmap ? "--directory=" + dir.path() : "--filename=" + warm_file,
             "--size=64k", "--rw=" + std::string(c.rw), "--bs=4k", "--ioengine=" + std::string(c.engine),
             "--iodepth=" + std::to_string(c.iodepth), "--direct=" + std::to_string(c.direct), "--numjobs=2",
             "--output-format=json", "--output=" + (dir / "warm.json")})
            .exit_status,
        0);
    // mmap: the files cold (written back first: fio's own invalidation, an
    // fadvise, cannot drop dirty pages), so every page the jobs read is faulted in.
    if (mmap)
        for (const char* name : {"check.0.0", "check.1.0"})
            ASSERT_EQ(run({workload_bin(), "evict", "--file", dir / name}).exit_status, 0);
    // The traced run. O_DIRECT: a second run when the first one's block
    // bytes fall short (below), so the known gap fails the test only when
    // it repeats.
    nlohmann::json fio, j;
    uint64_t ios = 0, bytes = 0;
    for (int attempt = 0;; ++attempt) {
        const std::string n = std::to_string(attempt);
        const uint64_t disk_before = disk_read_bytes();
        auto r = run({iolens_bin(), "record", "-o", dir / ("rec" + n + ".iolens"), "--json",
                      dir / ("report" + n + ".json"), "--", "/usr/bin/fio", "--name=check",
                      mmap ? "--directory=" + dir.path() : "--filename=" + file, "--size=2m",
                      "--rw=" + std::string(c.rw), "--bs=4k", "--ioengine=" + std::string(c.engine),
                      "--iodepth=" + std::to_string(c.iodepth), "--direct=" + std::to_string(c.direct),
                      "--numjobs=2", "--output-format=json", "--output=" + (dir / ("fio" + n + ".json"))});
        ASSERT_EQ(r.exit_status, 0) << r.err;
        const uint64_t disk_during = disk_read_bytes() - disk_before;
        fio = load_json(dir / ("fio" + n + ".json"));
        ios = bytes = 0;
        for (const auto& job : fio["jobs"]) {
            ios += job["read"]["total_ios"].get<uint64_t>();
            bytes += job["read"]["io_bytes"].get<uint64_t>();
        }
        ASSERT_EQ(bytes, 2u * (2u << 20)) << "two jobs, 2 MiB each";
        j = load_json(dir / ("report" + n + ".json"));
        if (!c.direct) break;
        // O_DIRECT: every byte fio read came from the disk, charged to fio's
        // processes (an io-wq worker is a thread of its ring's owner). Within
        // 64 KiB: the two jobs read the same sectors at the same time, and a
        // request is charged whole to one submitter, so a bio merged into
        // another process's request moves with it (seen: 4 MiB - 4 KiB).
        // Above fio's bytes only by what page faults and read misses brought
        // in (fio's parent faults in library code the machine evicted).
        uint64_t block = 0, cached_in = 0, device = 0;
        for (const auto& p : j["processes"]) {
            block += p["block"]["read_bytes"].get<uint64_t>();
            cached_in += p["page_cache"]["fault_bytes"].get<uint64_t>() +
                         p["page_cache"]["miss_bytes"].get<uint64_t>() +
                         p["page_cache"]["readahead_bytes"].get<uint64_t>();
        }
        for (const auto& d : j["block"]["devices"]) device += d["read"]["bytes"].get<uint64_t>();
        EXPECT_LE(block, bytes + cached_in + 128 * 1024);
        // Known gap (open): under heavy concurrent device load (a direct
        // writer beside the job) a run now and then lacks a stretch of one
        // job's requests on all four block probes (10 ms, 136 requests of
        // 4 KiB) while /proc/diskstats counts them. One retry; both short fails.
        const bool short_of_fio = block + 64 * 1024 < bytes;
        if (short_of_fio && attempt == 0) {
            std::fprintf(stderr,
                         "note: block bytes %llu short of fio's %llu (disks read %llu meanwhile, iolens's "
                         "devices %llu): once more\n",
                         static_cast<unsigned long long>(block), static_cast<unsigned long long>(bytes),
                         static_cast<unsigned long long>(disk_during),
                         static_cast<unsigned long long>(device));
            continue;
        }
        EXPECT_FALSE(short_of_fio) << "block bytes " << block << " short of fio's " << bytes
                                   << " twice (disks read " << disk_during << " meanwhile; iolens's devices "
                                   << device << ")";
        break;
    }
    if (std::string(c.path) == "io_uring")
        for (const auto& p : j["capture"]["probes"])
            if (p["name"] == "io_uring" && !p["attached"].get<bool>())
                GTEST_SKIP() << "io_uring probes not attached: " << p["reason"];
    EXPECT_EQ(j["capture"]["lost_events"], 0);
    if (mmap) return expect_mmap_faults(dir, fio, j);
    const nlohmann::json* f = file_in(j, file);
    ASSERT_NE(f, nullptr) << file << " not in the report";
    EXPECT_EQ((*f)["ops"]["read"]["calls"], ios);
    EXPECT_EQ((*f)["ops"]["read"]["bytes"], bytes);
    // A file whose calls were all plain syscalls has no "paths".
    if (std::string(c.path) == "syscall" && !f->contains("paths")) return;
    ASSERT_TRUE(f->contains("paths")) << *f;
    const auto& paths = f->at("paths");
    EXPECT_EQ(paths.value(c.path, nlohmann::json::object())
                  .value("read", nlohmann::json::object())
                  .value("calls", uint64_t{0}),
              ios)
        << paths;
}

INSTANTIATE_TEST_SUITE_P(
    OutsideCheck, FioCheck,
    ::testing::Values(FioCase{"psync", "read", 0, "syscall"}, FioCase{"psync", "read", 1, "syscall"},
                      FioCase{"psync", "randread", 0, "syscall"}, FioCase{"psync", "randread", 1, "syscall"},
                      FioCase{"pvsync2", "read", 0, "syscall"}, FioCase{"pvsync2", "read", 1, "syscall"},
                      FioCase{"pvsync2", "randread", 0, "syscall"},
                      FioCase{"pvsync2", "randread", 1, "syscall"}, FioCase{"mmap", "read", 0, "mmap"},
                      FioCase{"mmap", "randread", 0, "mmap"}, FioCase{"libaio", "read", 0, "aio"},
                      FioCase{"libaio", "read", 1, "aio"}, FioCase{"io_uring", "read", 0, "io_uring"},
                      FioCase{"io_uring", "read", 1, "io_uring"}, FioCase{"libaio", "read", 1, "aio", 8},
                      FioCase{"io_uring", "read", 1, "io_uring", 8}),
    [](const auto& info) {
        return std::string(info.param.engine) + "_" + info.param.rw +
               (info.param.direct ? "_direct" : "_buffered") +
               (info.param.iodepth != 4 ? "_iodepth" + std::to_string(info.param.iodepth) : "");
    });

// The queue depth iolens measures against fio's own: --iodepth=1 is one
// request in flight at a time (mean depth 1.0, and shallow_async fires);
// --iodepth=16 keeps many in flight.
struct DepthRun {
    nlohmann::json async;     // the fio job process's "async"
    nlohmann::json findings;  // the report's
    double fio_at_depth = 0;  // fio's share of time at its iodepth level (iodepth_level[iodepth])
};

DepthRun fio_depth(const TempDir& dir, const std::string& engine, int iodepth) {
    const std::string file = dir / "depth.bin";
    const std::string tag = engine + std::to_string(iodepth);
    const uint64_t disk_before = disk_read_bytes();
    auto r = run({iolens_bin(), "record", "-o", dir / (tag + ".iolens"), "--json", dir / (tag + ".json"),
                  "--", "/usr/bin/fio", "--name=depth", "--filename=" + file, "--size=8m", "--rw=randread",
                  "--bs=4k", "--ioengine=" + engine, "--iodepth=" + std::to_string(iodepth), "--direct=1",
                  "--randrepeat=1", "--output-format=json", "--output=" + (dir / (tag + "-fio.json"))});
    EXPECT_EQ(r.exit_status, 0) << r.err;
    DepthRun out;
    const auto j = load_json(dir / (tag + ".json"));
    out.findings = j["findings"];
    // The process that made the requests (fio's job process, forked by fio).
    for (const auto& p : j["processes"])
        if (p.contains("async") && (out.async.is_null() || p["async"]["requests"] > out.async["requests"]))
            out.async = p["async"];
    const auto fio = load_json(dir / (tag + "-fio.json"));
    const auto& levels = fio["jobs"][0]["iodepth_level"];
    const std::string key = iodepth >= 64 ? ">=64" : std::to_string(iodepth);
    if (levels.contains(key)) out.fio_at_depth = levels[key].get<double>();
    return out;
}

TEST(FioDepth, IoUringDepthOneVersusSixteen) {
    if (!is_root()) GTEST_SKIP() << "needs root (CAP_BPF, CAP_PERFMON) to load BPF programs";
    if (access("/usr/bin/fio", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/fio";
    TempDir dir;
    ASSERT_EQ(run({workload_bin(), "make-file", "--file", dir / "depth.bin", "--size", "8m"}).exit_status, 0);
    const auto d1 = fio_depth(dir, "io_uring", 1);
    const auto rec1 = load_json(dir / "io_uring1.json");  // kept: the loop refers into it
    for (const auto& p : rec1["capture"]["probes"])
        if (p["name"] == "io_uring" && !p["attached"].get<bool>())
            GTEST_SKIP() << "io_uring probes not attached: " << p["reason"];
    const auto d16 = fio_depth(dir, "io_uring", 16);
    ASSERT_TRUE(d1.async.is_object());
    ASSERT_TRUE(d16.async.is_object());
    std::printf(
        "fio io_uring iodepth=1: iolens mean %.3f max %d (fio at depth 1: %.1f%%); iodepth=16: "
        "iolens mean %.3f max %d (fio at depth 16: %.1f%%)\n",
        d1.async["mean_depth"].get<double>(), d1.async["max_depth"].get<int>(), d1.fio_at_depth,
        d16.async["mean_depth"].get<double>(), d16.async["max_depth"].get<int>(), d16.fio_at_depth);
    EXPECT_EQ(d1.async["requests"], 2048);
    EXPECT_EQ(d16.async["requests"], 2048);
    EXPECT_EQ(d1.async["max_depth"], 1);
    EXPECT_DOUBLE_EQ(d1.async["mean_depth"].get<double>(), 1.0);
    EXPECT_LE(d16.async["max_depth"].get<int>(), 16);
    // fio counts a request in flight until it reaps it, iolens until the
    // kernel posts its completion: on a busy machine fio reaps late, so the
    // kernel's depth is below fio's 16 (seen: 7.0 with fio's latency 2.2x
    // iolens's, 2.7 under heavy load, 1.99 in CI beside other tests), but
    // clearly above the one at a time that iodepth=1 gives exactly.
    EXPECT_GT(d16.async["mean_depth"].get<double>(), 1.5);
    EXPECT_LE(d16.async["mean_depth"].get<double>(), 16.0);
    const auto has = [](const nlohmann::json& findings) {
        for (const auto& f : findings)
            if (f["id"] == "shallow_async") return true;
        return false;
    };
    EXPECT_TRUE(has(d1.findings)) << d1.findings;
    EXPECT_FALSE(has(d16.findings)) << d16.findings;
}

}  // namespace
}  // namespace iolens::test
