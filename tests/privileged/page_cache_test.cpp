// Below the syscall: page cache, readahead, mmap faults and the block layer,
// on workloads whose cache state is set up on purpose (evict = fadvise
// DONTNEED, verified cold with mincore), cross-checked against the kernel's own
// counters (/proc/diskstats, /proc/vmstat) over the same window.
#include <gtest/gtest.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <fstream>
#include <sstream>
#include <filesystem>

#include "support.h"

namespace iolens::test {
namespace {

constexpr uint64_t kFileSize = 64ull << 20;

// Sectors read and written on one disk, from /proc/diskstats.
struct DiskCounters {
    uint64_t read_bytes = 0, write_bytes = 0;
};

DiskCounters disk_counters(uint32_t major, uint32_t minor) {
    std::ifstream in("/proc/diskstats");
    for (std::string line; std::getline(in, line);) {
        std::istringstream f(line);
        uint32_t ma, mi;
        std::string name;
        uint64_t v[11] = {};
        f >> ma >> mi >> name;
        for (auto& x : v) f >> x;
        if (ma == major && mi == minor) return {v[2] * 512, v[6] * 512};  // sectors read, sectors written
    }
    return {};
}

uint64_t vmstat(const std::string& key) {
    std::ifstream in("/proc/vmstat");
    std::string k;
    uint64_t v;
    while (in >> k >> v)
        if (k == key) return v;
    return 0;
}

class PageCache : public ::testing::Test {
protected:
    void SetUp() override {
        if (!is_root()) GTEST_SKIP() << "needs root (CAP_BPF, CAP_PERFMON) to load BPF programs";
        file = dir / "data.bin";
        ASSERT_EQ(run({workload_bin(), "make-file", "--file", file, "--size", std::to_string(kFileSize)})
                      .exit_status,
                  0);
        struct stat st {};
        ASSERT_EQ(stat(file.c_str(), &st), 0);
        // The block layer reports whole disks: for a partition, its parent.
        disk_major = major(st.st_dev);
        disk_minor = minor(st.st_dev);
        const std::string sys =
            "/sys/dev/block/" + std::to_string(disk_major) + ":" + std::to_string(disk_minor);
        if (std::ifstream(sys + "/partition")) {
            std::ifstream parent(sys + "/../dev");
            char colon;
            parent >> disk_major >> colon >> disk_minor;
        }
    }
    void evict() {
        auto r = run({workload_bin(), "evict", "--file", file});
        ASSERT_EQ(r.exit_status, 0) << r.err;
    }
    nlohmann::json record(const std::vector<std::string>& argv, const std::vector<std::string>& extra = {}) {
        std::vector<std::string> cmd = {iolens_bin(), "record", "-o",          dir / "rec.iolens",
                                        "-f",         "--json", dir / "r.json"};
        cmd.insert(cmd.end(), extra.begin(), extra.end());
        cmd.push_back("--");
        cmd.insert(cmd.end(), argv.begin(), argv.end());
        before = disk_counters(disk_major, disk_minor);
        pgpgin_before = vmstat("pgpgin");
        auto r = run(cmd);
        after = disk_counters(disk_major, disk_minor);
        pgpgin_after = vmstat("pgpgin");
        EXPECT_EQ(r.exit_status, 0) << r.err;
        auto j = load_json(dir / "r.json");
        for (const auto& p : j["capture"]["probes"])
            if (p["name"] == "pagecache" || p["name"] == "block") EXPECT_EQ(p["attached"], true) << p;
        EXPECT_EQ(j["capture"]["lost_events"], 0);
        return j;
    }
    const nlohmann::json& device(const nlohmann::json& j) {
        for (const auto& d : j["block"]["devices"])
            if (d["major"] == disk_major && d["minor"] == disk_minor) return d;
        static const nlohmann::json none = {{"read", {{"bytes", 0}, {"requests", 0}}},
                                            {"write", {{"bytes", 0}, {"requests", 0}}}};
        return none;
    }
    const nlohmann::json& the_file(const nlohmann::json& j) {
        for (const auto& f : j["files"])
            if (f["path"] == file) return f;
        ADD_FAILURE() << "no " << file << " in the report";
        static const nlohmann::json none = nlohmann::json::object();
        return none;
    }
    TempDir dir;
    std::string file;
    uint32_t disk_major = 0, disk_minor = 0;
    DiskCounters before, after;
    uint64_t pgpgin_before = 0, pgpgin_after = 0;
};

TEST_F(PageCache, ColdSequentialReadMissesAndTheReaderIsChargedForTheDevice) {
    evict();
    auto j = record({workload_bin(), "seq-read", "--file", file, "--chunk", "131072"});
    const auto& pc = j["page_cache"];
    ASSERT_TRUE(pc.is_object()) << "page cache numbers missing";
    EXPECT_LT(pc["hit_ratio"].get<double>(), 0.05);
    EXPECT_GE(pc["miss_bytes"].get<uint64_t>(), kFileSize * 95 / 100);
    EXPECT_LE(pc["miss_bytes"].get<uint64_t>(), kFileSize * 110 / 100);
    EXPECT_GT(pc["readahead_bytes"].get<uint64_t>(), kFileSize / 2)
        << "a sequential read is served by readahead";
    EXPECT_GT(pc["blocked_ns"].get<uint64_t>(), 0u);
    EXPECT_EQ(the_file(j)["page_cache"]["miss_bytes"], pc["miss_bytes"]);

    const auto& dev = device(j);
    const uint64_t dev_read = dev["read"]["bytes"].get<uint64_t>();
    EXPECT_GE(dev_read, kFileSize * 95 / 100);
    ASSERT_EQ(j["processes"].size(), 1u);
    const uint64_t charged = j["processes"][0]["block"]["read_bytes"].get<uint64_t>();
    EXPECT_GE(charged, dev_read * 90 / 100)
        << "a single sequential reader is charged >= 90% of its device's reads";
    EXPECT_GE(charged, kFileSize * 95 / 100);
    // Independent counters over a window that contains ours.
    EXPECT_LE(dev_read, after.read_bytes - before.read_bytes);
    EXPECT_GE(dev_read, (after.read_bytes - before.read_bytes) * 90 / 100);
    EXPECT_LE(dev_read / 1024, pgpgin_after - pgpgin_before);
}

// A process's block read bytes less what its page faults brought into the
// cache (its own code, when the machine dropped it), never below 0. Faults'
// bytes and their block reads are not equal to the byte (fault-around), so
// tests bound it: read_bytes >= the data, this <= the data.
uint64_t block_net_of_faults(const nlohmann::json& p) {
    const uint64_t block = p["block"]["read_bytes"].get<uint64_t>();
    const uint64_t faults = p["page_cache"]["fault_bytes"].get<uint64_t>();
    return block > faults ? block - faults : 0;
}

TEST_F(PageCache, WarmReadHitsAndReadsNothingFromTheDevice) {
    ASSERT_EQ(run({workload_bin(), "seq-read", "--file", file}).exit_status, 0);  // warm it
    auto j = record({workload_bin(), "seq-read", "--file", file, "--chunk", "131072"});
    const auto& pc = j["page_cache"];
    EXPECT_GT(pc["hit_ratio"].get<double>(), 0.99);
    EXPECT_EQ(pc["hit_bytes"], kFileSize);
    EXPECT_EQ(pc["miss_bytes"], 0);
    EXPECT_LE(block_net_of_faults(j["processes"][0]), 64u * 1024);  // the data: nothing
}

TEST_F(PageCache, DirectIoBypassesThePageCacheAndReadsExactlyTheBytesFromTheDevice) {
    evict();
    auto j = record({workload_bin(), "seq-read", "--file", file, "--chunk", "1048576", "--direct"});
    EXPECT_EQ(j["page_cache"]["miss_bytes"], 0);
    EXPECT_EQ(j["totals"]["read"]["bytes"], kFileSize);
    // Every byte read came from the device, charged to the reader, no more
    // (than what its page faults brought in: this machine drops clean page
    // cache on its own, so the workload's code may be faulted in again).
    EXPECT_GE(j["processes"][0]["block"]["read_bytes"].get<uint64_t>(), kFileSize);
    EXPECT_LE(block_net_of_faults(j["processes"][0]), kFileSize);
    EXPECT_GE(device(j)["read"]["bytes"].get<uint64_t>(), kFileSize);
}

TEST_F(PageCache, ReadsMergedAtTheFrontOfARequestAreChargedToTheReader) {
    // One io_submit of O_DIRECT reads, last chunk first: under the block plug
    // each read's bio is merged at the front of the request holding the one
    // after it, so requests reach the device at a sector none of them was
    // allocated at. Every byte is still the reader's.
    auto j = record({workload_bin(), "reverse-aio-read", "--file", file, "--chunk", "65536"});
    EXPECT_EQ(j["page_cache"]["miss_bytes"], 0);
    EXPECT_GE(j["processes"][0]["block"]["read_bytes"].get<uint64_t>(), kFileSize);
    EXPECT_LE(block_net_of_faults(j["processes"][0]), kFileSize);
    EXPECT_LT(j["processes"][0]["block"]["requests"].get<uint64_t>(), kFileSize / 65536)
        << "no read was merged";
}

// Pages the job drops itself (POSIX_FADV_DONTNEED, outside reclaim) are
// marked so: the cache did not fail to hold them (dataset_exceeds_cache).
TEST_F(PageCache, PagesTheJobDropsItselfAreEvictedByTheJob) {
    ASSERT_EQ(run({workload_bin(), "seq-read", "--file", file}).exit_status, 0);  // cached
    auto j = record({"/bin/sh", "-c",
                     std::string(workload_bin()) + " seq-read --file " + file + " && " + workload_bin() +
                         " evict --file " + file});
    const auto& f = the_file(j)["page_cache"];
    EXPECT_GE(f["evicted_bytes"].get<uint64_t>(), kFileSize * 99 / 100);
    EXPECT_EQ(f["evicted_by_job_bytes"], f["evicted_bytes"]);
}

// A flood of page-cache events is bounded per CPU, and what is cut is
// counted, never silent (#20.4): 32,768 4 KiB pages that touch no other,
// written and then dropped at once by one thread. The standard build merges
// one thread's evictions of one file into a run (the model needs only their
// bytes), so it sends a handful of records and loses nothing; the legacy
// build (kernels before 5.11: no task storage, no runs) sends one record per
// folio, 32,768 in one burst, four times one CPU's budget (8,192 records per
// 100 ms): the rest is cut and counted. Either way the calls stay exact, and
// the evictions reported plus the folios cut add up to every page.
TEST_F(PageCache, AFloodOfEvictionsIsMergedOrCutAtTheBudgetAndCounted) {
    constexpr uint64_t kPages = 32768, kPage = 4096;
    const std::string sparse = dir / "sparse.bin";
    const auto flood = [&](const char* variant) {
        const auto r = run({iolens_bin(),
                            "record",
                            "--force-variant",
                            variant,
                            "-o",
                            dir / "flood.iolens",
                            "-f",
                            "--json",
                            dir / "flood.json",
                            "--",
                            workload_bin(),
                            "write-file",
                            "--file",
                            sparse,
                            "--size",
                            std::to_string(kPages * kPage),
                            "--chunk",
                            std::to_string(kPage),
                            "--stride",
                            std::to_string(2 * kPage),
                            "--evict-after"});
        EXPECT_EQ(r.exit_status, 0) << r.err;
        auto j = load_json(dir / "flood.json");
        EXPECT_EQ(j["totals"]["write"]["calls"], kPages) << variant;
        EXPECT_EQ(j["totals"]["write"]["bytes"], kPages * kPage) << variant;
        // Bounded: the recording holds the calls, not one record per page dropped.
        struct stat st {};
        EXPECT_EQ(stat((dir / "flood.iolens").c_str(), &st), 0);
        EXPECT_LT(static_cast<uint64_t>(st.st_size), 16ull << 20) << variant;
        return j;
    };
    const auto evicted_of = [&](const nlohmann::json& j) {
        for (const auto& f : j["files"])
            if (f["path"] == sparse) return f["page_cache"]["evicted_bytes"].get<uint64_t>();
        ADD_FAILURE() << "no " << sparse << " in the report";
        return uint64_t{0};
    };

    auto j = flood("standard");
    EXPECT_EQ(j["capture"]["lost_events"], 0) << j["capture"]["lost_detail"];
    EXPECT_EQ(evicted_of(j), kPages * kPage);

    j = flood("legacy");
    const uint64_t cut = j["capture"]["lost_detail"].value("pagecache_over_budget", uint64_t{0});
    EXPECT_GE(cut, kPages / 2) << "the burst was not cut at the budget: " << j["capture"]["lost_detail"];
    EXPECT_GE(j["capture"]["lost_events"].get<uint64_t>(), cut);
    const uint64_t evicted = evicted_of(j);
    EXPECT_GE(evicted, 8192 * kPage);  // at least one window's budget got through
    EXPECT_EQ(evicted + cut * kPage, kPages * kPage)
        << "evicted " << evicted << " + cut " << cut << " folios";
}

TEST_F(PageCache, ColdMmapScanIsBroughtInByPageFaults) {
    evict();
    auto j = record({workload_bin(), "mmap-scan", "--file", file});
    const auto& f = the_file(j)["page_cache"];
    EXPECT_GE(f["fault_bytes"].get<uint64_t>(), kFileSize * 95 / 100);
    EXPECT_LE(f["fault_bytes"].get<uint64_t>(), kFileSize * 110 / 100);
    EXPECT_GE(f["major_faults"].get<uint64_t>(), 1u);
    EXPECT_GE(j["page_cache"]["fault_bytes"].get<uint64_t>(), f["fault_bytes"].get<uint64_t>());
    EXPECT_GE(j["processes"][0]["block"]["read_bytes"].get<uint64_t>(), kFileSize * 90 / 100);
}

TEST_F(PageCache, MajorFaultsAreTheKernelsOwnCount) {
    // A cold np.memmap-like scan in Python, sequential then random: iolens's
    // major faults for the process equal its getrusage ru_majflt (a
    // sequential scan said 64 where the kernel counts 2: the pages a minor
    // fault's async readahead brought in were counted as majors).
    if (access("/usr/bin/python3", X_OK) != 0)
        GTEST_SKIP() << "needs /usr/bin/python3 (tools/install-deps.sh)";
    const std::string script = dir / "scan.py", out = dir / "majflt";
    {
        std::ofstream py(script);
        py << "import mmap, os, sys, random, resource\n"
              "fd = os.open(sys.argv[1], os.O_RDONLY)\n"
              "m = mmap.mmap(fd, 0, prot=mmap.PROT_READ)\n"
              "idx = list(range(0, os.fstat(fd).st_size, 4096))\n"
              "if sys.argv[2] == 'random':\n"
              "    random.seed(1)\n"
              "    random.shuffle(idx)\n"
              "s = sum(m[i] for i in idx)\n"
              "open(sys.argv[3], 'w').write(str(resource.getrusage(resource.RUSAGE_SELF).ru_majflt))\n";
    }
    for (const char* order : {"sequential", "random"}) {
        SCOPED_TRACE(order);
        evict();
        auto j = record({"/usr/bin/python3", script, file, order, out});
        std::ifstream in(out);
        uint64_t kernel = 0;
        ASSERT_TRUE(in >> kernel);
        ASSERT_EQ(j["processes"].size(), 1u);
        EXPECT_EQ(j["processes"][0]["page_cache"]["major_faults"].get<uint64_t>(), kernel);
        EXPECT_GE(kernel, 1u);
    }
}

TEST_F(PageCache, RandomSmallReadsLeaveReadaheadUnused) {
    // On this kernel a lone random 4 KiB miss reads just its page; readahead
    // starts when a miss lands at page 0 or next to cached pages, which
    // thousands of random reads of a 16384-page file do (docs/workload.md:
    // about 200 extra pages for 4000 reads). Evicting the file at the end
    // shows which pages were never used.
    evict();
    const uint64_t n = 4000;
    auto j = record(
        {workload_bin(), "random-read", "--file", file, "--count", std::to_string(n), "--evict-after"});
    const auto& pc = j["page_cache"];
    EXPECT_EQ(j["totals"]["read"]["calls"], n);
    EXPECT_LT(pc["hit_ratio"].get<double>(), 0.1);
    EXPECT_GT(pc["miss_bytes"].get<uint64_t>(), n * 4096);
    EXPECT_GE(pc["evicted_bytes"].get<uint64_t>(), pc["miss_bytes"].get<uint64_t>());
    EXPECT_GT(pc["readahead_unused_bytes"].get<uint64_t>(), 0u);
    // Unused = brought in beyond the pages the reads asked for.
    EXPECT_LE(pc["readahead_unused_bytes"].get<uint64_t>(), pc["miss_bytes"].get<uint64_t>() - n * 4096);
    EXPECT_LE(pc["readahead_unused_bytes"].get<uint64_t>(), pc["readahead_bytes"].get<uint64_t>());
}

const nlohmann::json* finding(const nlohmann::json& j, const std::string& id) {
    for (const auto& f : j["findings"])
        if (f["id"] == id) return &f;
    return nullptr;
}

// A memory cgroup limited to `limit` bytes: v1 (/sys/fs/cgroup/memory) or
// the unified hierarchy's memory controller, whichever this machine has.
class MemoryCgroup {
public:
    explicit MemoryCgroup(uint64_t limit) {
        const std::string name = "iolens-test-" + std::to_string(getpid());
        if (std::filesystem::exists("/sys/fs/cgroup/memory/memory.limit_in_bytes")) {
            path_ = "/sys/fs/cgroup/memory/" + name;
            limit_file_ = "memory.limit_in_bytes";
        } else if (std::ifstream c("/sys/fs/cgroup/cgroup.controllers"); c) {
            std::string all((std::istreambuf_iterator<char>(c)), {});
            if (all.find("memory") == std::string::npos) return;
            path_ = "/sys/fs/cgroup/" + name;
            limit_file_ = "memory.max";
        } else {
            return;
        }
        std::error_code ec;
        std::filesystem::create_directory(path_, ec);
        std::ofstream(path_ + "/" + limit_file_) << limit;
        if (ec || !std::ifstream(path_ + "/cgroup.procs")) path_.clear();
    }
    ~MemoryCgroup() {
        if (!path_.empty()) rmdir(path_.c_str());
    }
    bool ok() const { return !path_.empty(); }
    // A shell command that moves itself into the cgroup, then execs `cmd`.
    std::vector<std::string> inside(const std::string& cmd) const {
        return {"/bin/sh", "-c", "echo $$ > " + path_ + "/cgroup.procs && exec " + cmd};
    }

private:
    std::string path_, limit_file_;
};

TEST_F(PageCache, SequentialReadLargerThanItsMemoryCgroupLeavesNothingUnread) {
    // dd reads a 192 MiB file to its last byte inside a 48 MiB memory
    // cgroup: reclaim evicts most of it (and clears the pages' referenced
    // flags first), yet every read-ahead byte was read: nothing unused, no
    // readahead_waste (it used to report most of the file "evicted unread").
    MemoryCgroup cg(48ull << 20);
    if (!cg.ok()) GTEST_SKIP() << "no memory cgroup controller to limit the reader";
    const std::string big = dir / "big.bin";
    constexpr uint64_t kBig = 192ull << 20;
    ASSERT_EQ(run({workload_bin(), "make-file", "--file", big, "--size", std::to_string(kBig)}).exit_status,
              0);
    ASSERT_EQ(run({workload_bin(), "evict", "--file", big}).exit_status, 0);
    auto j = record(cg.inside("dd if=" + big + " of=/dev/null bs=4096"));
    const auto& pc = j["page_cache"];
    EXPECT_GE(pc["evicted_bytes"].get<uint64_t>(), kBig / 2) << "the cgroup did not make reclaim evict";
    EXPECT_GT(pc["readahead_bytes"].get<uint64_t>(), kBig / 2);
    EXPECT_LT(pc["readahead_bytes"].get<uint64_t>(), pc["miss_bytes"].get<uint64_t>())
        << "the pages each read asked for are not readahead";
    EXPECT_EQ(pc["readahead_unused_bytes"], 0);
    EXPECT_EQ(pc["readahead_unread_at_end_bytes"], 0);
    EXPECT_EQ(finding(j, "readahead_waste"), nullptr) << j["findings"].dump();
}

TEST_F(PageCache, RandomAdvisedReadsReadNothingAhead) {
    // FADV_RANDOM 4 KiB reads: each miss reads its own page, nothing ahead
    // ("of it readahead" used to equal "brought in").
    evict();
    const uint64_t n = 2000;
    auto j = record(
        {workload_bin(), "random-read", "--file", file, "--count", std::to_string(n), "--advice", "random"});
    // The data file's figures: the loader's reads of cold libraries may
    // read ahead on their own.
    const auto& pc = the_file(j)["page_cache"];
    EXPECT_GE(pc["miss_bytes"].get<uint64_t>(), n * 4096 * 95 / 100);
    EXPECT_EQ(pc["readahead_bytes"], 0);
    EXPECT_EQ(pc["readahead_unused_bytes"], 0);
    EXPECT_EQ(pc["readahead_unread_at_end_bytes"], 0);
}

TEST_F(PageCache, HeadReadsOfColdFilesWasteTheirReadahead) {
    // One 4 KiB read at offset 0 of each of 4,500 cold 16 KiB files: the
    // kernel's initial readahead brings in all 4 pages, 3 never read.
    const std::string data = dir / "ds";
    const uint64_t n = 4500;
    ASSERT_EQ(
        run({workload_bin(), "make-dataset", "--dir", data, "--files", std::to_string(n), "--size", "16384"})
            .exit_status,
        0);
    ASSERT_EQ(run({workload_bin(), "head-read", "--dir", data, "--files", std::to_string(n), "--evict"})
                  .exit_status,
              0);
    auto j = record({workload_bin(), "head-read", "--dir", data, "--files", std::to_string(n)});
    const auto& pc = j["page_cache"];
    const uint64_t ra = pc["readahead_bytes"].get<uint64_t>();
    const uint64_t never =
        pc["readahead_unused_bytes"].get<uint64_t>() + pc["readahead_unread_at_end_bytes"].get<uint64_t>();
    EXPECT_GE(pc["miss_bytes"].get<uint64_t>(), n * 16384 * 9 / 10);
    EXPECT_GE(ra, n * 12288 * 9 / 10);
    EXPECT_LE(never, ra) << "never read is part of what was read ahead";
    EXPECT_GE(never, ra * 9 / 10);
    const auto* f = finding(j, "readahead_waste");
    ASSERT_NE(f, nullptr) << j["findings"].dump();
    EXPECT_EQ((*f)["evidence"]["readahead_bytes"], ra);
}

TEST_F(PageCache, FsyncedWritesAreChargedToTheWriter) {
    auto j = record({workload_bin(), "write-file", "--file", dir / "out.bin", "--size",
                     std::to_string(kFileSize), "--fsync"});
    const uint64_t charged = j["processes"][0]["block"]["write_bytes"].get<uint64_t>();
    EXPECT_GE(charged, kFileSize * 90 / 100);
    EXPECT_GE(device(j)["write"]["bytes"].get<uint64_t>(), charged);
    EXPECT_LE(device(j)["write"]["bytes"].get<uint64_t>(), after.write_bytes - before.write_bytes);
}

TEST_F(PageCache, DropCachesMakesTheRunCold) {
    ASSERT_EQ(run({workload_bin(), "seq-read", "--file", file}).exit_status, 0);  // warm it
    auto j = record({workload_bin(), "seq-read", "--file", file}, {"--drop-caches"});
    EXPECT_LT(j["page_cache"]["hit_ratio"].get<double>(), 0.05);
    EXPECT_GE(j["processes"][0]["block"]["read_bytes"].get<uint64_t>(), kFileSize * 90 / 100);
}

}  // namespace
}  // namespace iolens::test
