// End-to-end: data that reaches a file by paths other than read/write
// syscalls (copy calls; Linux AIO; io_uring) is counted in the same class
// tables, to the call and the byte, and marked by its path.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>

#include "support.h"

namespace iolens::test {
namespace {

constexpr uint64_t kSize = 256 * 1024;

class DataPaths : public ::testing::Test {
protected:
    void SetUp() override {
        if (!is_root()) GTEST_SKIP() << "needs root (CAP_BPF, CAP_PERFMON) to load BPF programs";
        src = dir / "src.bin";
        dst = dir / "dst.bin";
        ASSERT_EQ(
            run({workload_bin(), "make-file", "--file", src, "--size", std::to_string(kSize)}).exit_status,
            0);
    }
    // Records argv; each run into its own files (rec<N>.iolens, report<N>.json).
    nlohmann::json record(const std::vector<std::string>& argv,
                          const std::vector<std::string>& options = {}) {
        const std::string n = std::to_string(++runs);
        std::vector<std::string> cmd = {iolens_bin(), "record",
                                        "-o",         dir / ("rec" + n + ".iolens"),
                                        "--json",     dir / ("report" + n + ".json")};
        cmd.insert(cmd.end(), options.begin(), options.end());
        cmd.push_back("--");
        cmd.insert(cmd.end(), argv.begin(), argv.end());
        last = run(cmd);
        EXPECT_EQ(last.exit_status, 0) << last.err;
        return load_json(dir / ("report" + n + ".json"));
    }
    int runs = 0;
    static nlohmann::json file_entry(const nlohmann::json& report, const std::string& path) {
        for (const auto& f : report["files"])
            if (f["path"] == path) return f;
        ADD_FAILURE() << "no file " << path << " in the report";
        return nlohmann::json::object();
    }
    // A copy of kSize bytes: read from src and written to dst, each charged
    // to its own file, all of it marked as copy calls. calls: per side (0:
    // not checked, for tools whose call count is theirs to choose).
    void expect_copy(const nlohmann::json& j, uint64_t calls) {
        EXPECT_EQ(j["capture"]["lost_events"], 0);
        const auto& copy = j["paths"]["copy"];
        ASSERT_TRUE(copy.is_object()) << j["paths"];
        EXPECT_EQ(copy["read"]["bytes"], kSize);
        EXPECT_EQ(copy["write"]["bytes"], kSize);
        if (calls) {
            EXPECT_EQ(copy["read"]["calls"], calls);
            EXPECT_EQ(copy["write"]["calls"], calls);
            EXPECT_EQ(j["totals"]["read"]["calls"].get<uint64_t>(),
                      calls + j["paths"]
                                  .value("syscall", nlohmann::json::object())
                                  .value("read", nlohmann::json::object())
                                  .value("calls", uint64_t{0}));
        }
        auto s = file_entry(j, src);
        EXPECT_EQ(s["ops"]["read"]["bytes"], kSize);
        EXPECT_EQ(s["ops"]["write"]["calls"], 0);
        EXPECT_EQ(s["paths"]["copy"]["read"]["bytes"], kSize);
        auto d = file_entry(j, dst);
        EXPECT_EQ(d["ops"]["write"]["bytes"], kSize);
        EXPECT_EQ(d["ops"]["read"]["calls"], 0);
        EXPECT_EQ(d["paths"]["copy"]["write"]["bytes"], kSize);
    }
    TempDir dir;
    std::string src, dst;
    RunResult last;
};

TEST_F(DataPaths, SendfileIsAReadOfTheSourceAndAWriteOfTheDestination) {
    auto j = record({workload_bin(), "copy", "--src", src, "--dst", dst, "--via", "sendfile"});
    expect_copy(j, kSize / 65536);
    // The workload's only reads and writes are its copy calls.
    EXPECT_EQ(j["totals"]["read"]["calls"], kSize / 65536);
    EXPECT_EQ(j["totals"]["write"]["calls"], kSize / 65536);
    EXPECT_EQ(j["totals"]["read"]["requested_bytes"], kSize);
    // Each chunk starts where the previous one ended.
    EXPECT_EQ(file_entry(j, src)["sequential"], kSize / 65536);
    EXPECT_EQ(file_entry(j, dst)["sequential"], kSize / 65536);
}

TEST_F(DataPaths, SendfileWithAnOffsetPointer) {
    auto j = record({workload_bin(), "copy", "--src", src, "--dst", dst, "--via", "sendfile", "--offsets",
                     "--chunk", "16k"});
    expect_copy(j, kSize / 16384);
    EXPECT_EQ(file_entry(j, src)["sequential"], kSize / 16384);
    EXPECT_EQ(file_entry(j, src)["random"], 0);
}

TEST_F(DataPaths, CopyFileRange) {
    auto j = record({workload_bin(), "copy", "--src", src, "--dst", dst, "--via", "copy_file_range"});
    expect_copy(j, kSize / 65536);
    EXPECT_EQ(j["totals"]["write"]["calls"], kSize / 65536);
    auto j2 = record({workload_bin(), "copy", "--src", src, "--dst", dst, "--via", "copy_file_range",
                      "--offsets", "--chunk", "100000"});
    expect_copy(j2, 3);  // 100000 + 100000 + 62144
    EXPECT_EQ(file_entry(j2, src)["sequential"], 3);
    EXPECT_EQ(file_entry(j2, dst)["sequential"], 3);
}

// A copy within one file through one descriptor: each call is a read and a
// write of the same fd and file, with the same size. The kernel side folds a
// thread's calls that continue one another into runs (IOLENS_REC_SYSCALL_RUN);
// a call's read must never join the run of the previous call's write.
TEST_F(DataPaths, CopyWithinOneFileKeepsReadsAndWritesApart) {
    auto j = record(
        {workload_bin(), "copy", "--src", src, "--via", "copy_file_range", "--within", "--chunk", "4096"});
    const uint64_t calls = kSize / 2 / 4096;
    EXPECT_EQ(j["capture"]["lost_events"], 0);
    EXPECT_EQ(j["totals"]["read"]["calls"], calls);
    EXPECT_EQ(j["totals"]["read"]["bytes"], kSize / 2);
    EXPECT_EQ(j["totals"]["write"]["calls"], calls);
    EXPECT_EQ(j["totals"]["write"]["bytes"], kSize / 2);
}

TEST_F(DataPaths, SpliceThroughAPipeChargesEachFileOnce) {
    // Two splices per chunk: file -> pipe is the read, pipe -> file the
    // write; the pipe side of each has no record.
    auto j = record({workload_bin(), "copy", "--src", src, "--dst", dst, "--via", "splice"});
    expect_copy(j, kSize / 65536);
    EXPECT_EQ(j["totals"]["read"]["calls"], kSize / 65536);
    EXPECT_EQ(j["totals"]["write"]["calls"], kSize / 65536);
    EXPECT_EQ(j["totals"]["close"]["calls"], 4);
}

TEST_F(DataPaths, CoreutilsCp) {
    if (access("/usr/bin/cp", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/cp";
    auto j = record({"/usr/bin/cp", src, dst});
    expect_copy(j, 0);
}

TEST_F(DataPaths, PythonShutilCopyfile) {
    if (access("/usr/bin/python3", X_OK) != 0) GTEST_SKIP() << "no /usr/bin/python3";
    auto j = record({"/usr/bin/python3", "-c",
                     "import shutil, sys; shutil.copyfile(sys.argv[1], sys.argv[2])", src, dst});
    expect_copy(j, 0);
}

TEST_F(DataPaths, TerminalReportMarksCopyCalls) {
    record({workload_bin(), "copy", "--src", src, "--dst", dst, "--via", "sendfile"});
    auto r = run({iolens_bin(), "report", dir / "rec1.iolens"});
    ASSERT_EQ(r.exit_status, 0) << r.err;
    EXPECT_NE(r.out.find("Calls by data path"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("[copy]"), std::string::npos) << r.out;
}

// Linux AIO: every iocb from io_submit to the io_event io_getevents
// returned, one request of its class each, marked path=aio.
class Aio : public DataPaths {
protected:
    // The workload's AIO requests: n of `chunk` bytes on src, and nothing
    // else of that class.
    void expect_aio(const nlohmann::json& j, const char* op, uint64_t n, uint64_t chunk) {
        EXPECT_EQ(j["capture"]["lost_events"], 0);
        EXPECT_EQ(j["capture"]["kernel_counters"]["aio_event_unmatched"], 0);
        const auto& aio = j["paths"]["aio"][op];
        ASSERT_TRUE(aio.is_object()) << j["paths"];
        EXPECT_EQ(aio["calls"], n);
        EXPECT_EQ(aio["errors"], 0);
        EXPECT_EQ(aio["bytes"], n * chunk);
        EXPECT_EQ(aio["requested_bytes"], n * chunk);
        EXPECT_GT(aio["time_ns"].get<uint64_t>(), 0u);
        EXPECT_EQ(j["totals"][op]["calls"], n);
        EXPECT_EQ(j["totals"][op]["bytes"], n * chunk);
        auto f = file_entry(j, src);
        EXPECT_EQ(f["ops"][op]["calls"], n);
        EXPECT_EQ(f["ops"][op]["bytes"], n * chunk);
        EXPECT_EQ(f["paths"]["aio"][op]["calls"], n);
        EXPECT_EQ(j["totals"][op]["size_bytes"]["count"], n);
    }
};

TEST_F(Aio, BufferedReadsEachCountOnce) {
    auto j = record({workload_bin(), "aio", "--file", src, "--chunk", "4096", "--depth", "8"});
    expect_aio(j, "read", kSize / 4096, 4096);
}

TEST_F(Aio, DirectReadsAreTheirProcessesBlockBytes) {
    auto j = record({workload_bin(), "aio", "--file", src, "--chunk", "16384", "--depth", "16", "--direct"});
    expect_aio(j, "read", kSize / 16384, 16384);
    ASSERT_EQ(j["processes"].size(), 1u);
    // Every byte read from the disk for the file, plus at most a little
    // metadata (an extent block the first O_DIRECT read may need).
    EXPECT_GE(j["processes"][0]["block"]["read_bytes"].get<uint64_t>(), kSize);
    EXPECT_LE(j["processes"][0]["block"]["read_bytes"].get<uint64_t>(), kSize + 64 * 1024);
}

TEST_F(Aio, TheLegacyBuildFollowsBatchesOf64) {
    // Kernels before 5.11 (the legacy build) have no bpf_loop: at most 64
    // iocbs per io_submit are followed, in an unrolled loop.
    auto j = record({workload_bin(), "aio", "--file", src, "--chunk", "4096", "--depth", "64"},
                    {"--force-variant", "legacy"});
    expect_aio(j, "read", kSize / 4096, 4096);
}

TEST_F(Aio, DirectWritesAndAFullBatch) {
    auto j = record({workload_bin(), "aio", "--file", src, "--op", "write", "--chunk", "4096", "--depth",
                     "64", "--direct"});
    expect_aio(j, "write", kSize / 4096, 4096);
}

// The depth an AIO job reached, as for io_uring: one iocb per io_submit
// (each reaped before the next) is depth 1 exactly; 8 per io_submit, deeper.
TEST_F(Aio, QueueDepthOneVersusEight) {
    const std::string big = dir / "big.bin";
    constexpr uint64_t kBig = 8 << 20, kChunk = 4096;
    ASSERT_EQ(run({workload_bin(), "make-file", "--file", big, "--size", std::to_string(kBig)}).exit_status,
              0);
    const auto run_depth = [&](const char* depth) {
        return record(
            {workload_bin(), "aio", "--file", big, "--chunk", "4096", "--depth", depth, "--direct"});
    };
    const auto d1 = run_depth("1"), d8 = run_depth("8");
    const auto async_of = [](const nlohmann::json& j) {
        EXPECT_EQ(j["processes"].size(), 1u);
        return j["processes"][0].value("async", nlohmann::json::object());
    };
    const auto a1 = async_of(d1), a8 = async_of(d8);
    ASSERT_TRUE(a1.contains("mean_depth")) << d1["processes"];
    ASSERT_TRUE(a8.contains("mean_depth")) << d8["processes"];
    std::printf("aio depth 1: mean %.3f max %llu; depth 8: mean %.3f max %llu\n",
                a1["mean_depth"].get<double>(), a1["max_depth"].get<unsigned long long>(),
                a8["mean_depth"].get<double>(), a8["max_depth"].get<unsigned long long>());
    for (const auto* a : {&a1, &a8}) {
        EXPECT_EQ((*a)["requests"], kBig / kChunk);
        EXPECT_EQ((*a)["clipped"], 0);
    }
    EXPECT_EQ(a1["max_depth"], 1);
    EXPECT_DOUBLE_EQ(a1["mean_depth"].get<double>(), 1.0);
    EXPECT_LE(a8["max_depth"].get<uint64_t>(), 8u);
    EXPECT_GE(a8["max_depth"].get<uint64_t>(), 2u);
    EXPECT_GT(a8["mean_depth"].get<double>(), 1.5);
    EXPECT_EQ(file_entry(d8, big)["paths"]["aio"]["read"]["calls"], kBig / kChunk);
    const auto has = [](const nlohmann::json& j, const char* id) {
        for (const auto& f : j["findings"])
            if (f["id"] == id) return true;
        return false;
    };
    EXPECT_TRUE(has(d1, "shallow_async")) << d1["findings"];
    EXPECT_FALSE(has(d8, "shallow_async")) << d8["findings"];
}

// io_uring: every read/write request from io_uring_submit_req to
// io_uring_complete, one request of its class each, marked path=io_uring.
class IoUring : public DataPaths {
protected:
    // Whether the io_uring probes attached (kernel 6.4+); the reason if not.
    static std::string missing(const nlohmann::json& j) {
        for (const auto& p : j["capture"]["probes"])
            if (p["name"] == "io_uring")
                return p["attached"].get<bool>() ? "" : p["reason"].get<std::string>();
        return "no io_uring probe family in the recording";
    }
    void expect_uring(const nlohmann::json& j, const char* op, uint64_t n, uint64_t chunk) {
        EXPECT_EQ(j["capture"]["lost_events"], 0);
        const auto& u = j["paths"]["io_uring"][op];
        ASSERT_TRUE(u.is_object()) << j["paths"];
        EXPECT_EQ(u["calls"], n);
        EXPECT_EQ(u["errors"], 0);
        EXPECT_EQ(u["bytes"], n * chunk);
        EXPECT_EQ(u["requested_bytes"], n * chunk);
        EXPECT_GT(u["time_ns"].get<uint64_t>(), 0u);
        EXPECT_LE(u["offloaded"].get<uint64_t>(), n);
        EXPECT_EQ(j["totals"][op]["calls"], n);
        EXPECT_EQ(j["totals"][op]["bytes"], n * chunk);
        auto f = file_entry(j, src);
        EXPECT_EQ(f["ops"][op]["calls"], n);
        EXPECT_EQ(f["ops"][op]["bytes"], n * chunk);
        EXPECT_EQ(f["paths"]["io_uring"][op]["calls"], n);
        // Requests in file order, submitted D at a time: each starts where
        // one submitted before it ended.
        EXPECT_EQ(f["sequential"].get<uint64_t>() + f["random"].get<uint64_t>(), n);
    }
};

TEST_F(IoUring, BufferedReadsEachCountOnce) {
    auto j = record({workload_bin(), "uring", "--file", src, "--chunk", "4096", "--depth", "8"});
    if (auto why = missing(j); !why.empty()) GTEST_SKIP() << "io_uring probes not attached: " << why;
    expect_uring(j, "read", kSize / 4096, 4096);
}

TEST_F(IoUring, DirectReadsAreTheirProcessesBlockBytes) {
    auto j =
        record({workload_bin(), "uring", "--file", src, "--chunk", "16384", "--depth", "16", "--direct"});
    if (auto why = missing(j); !why.empty()) GTEST_SKIP() << "io_uring probes not attached: " << why;
    expect_uring(j, "read", kSize / 16384, 16384);
    ASSERT_EQ(j["processes"].size(), 1u);
    // Every byte read from the disk for the file, plus at most a little
    // metadata (an extent block the first O_DIRECT read may need).
    EXPECT_GE(j["processes"][0]["block"]["read_bytes"].get<uint64_t>(), kSize);
    EXPECT_LE(j["processes"][0]["block"]["read_bytes"].get<uint64_t>(), kSize + 64 * 1024);
}

// The threads io_uring does its work on belong to the ring's owner (5.12+):
// requests a SQPOLL thread submits, and requests sent to io-wq workers, are
// the owner's requests, and the device reads they cause are charged to it,
// never to a kernel thread or to nobody.
TEST_F(IoUring, SqpollAndIoWqWorkIsTheOwnersWork) {
    for (const char* how : {"--sqpoll", "--async"}) {
        SCOPED_TRACE(how);
        auto j = record(
            {workload_bin(), "uring", "--file", src, "--chunk", "16384", "--depth", "16", "--direct", how});
        if (auto why = missing(j); !why.empty()) GTEST_SKIP() << "io_uring probes not attached: " << why;
        expect_uring(j, "read", kSize / 16384, 16384);
        ASSERT_EQ(j["processes"].size(), 1u);
        EXPECT_GE(j["processes"][0]["block"]["read_bytes"].get<uint64_t>(), kSize);
        EXPECT_LE(j["processes"][0]["block"]["read_bytes"].get<uint64_t>(), kSize + 64 * 1024);
        if (std::string(how) == "--async")  // every request went to an io-wq worker
            EXPECT_EQ(j["paths"]["io_uring"]["read"]["offloaded"], kSize / 16384);
    }
}

TEST_F(IoUring, WritesToAFixedFileResolveToItsPath) {
    auto j = record({workload_bin(), "uring", "--file", src, "--op", "write", "--chunk", "8192", "--depth",
                     "32", "--fixed"});
    if (auto why = missing(j); !why.empty()) GTEST_SKIP() << "io_uring probes not attached: " << why;
    expect_uring(j, "write", kSize / 8192, 8192);
}

TEST_F(IoUring, ReadvRequestsCountTheirIovecs) {
    auto j =
        record({workload_bin(), "uring", "--file", src, "--chunk", "8192", "--depth", "4", "--vectored"});
    if (auto why = missing(j); !why.empty()) GTEST_SKIP() << "io_uring probes not attached: " << why;
    expect_uring(j, "read", kSize / 8192, 8192);  // requested_bytes: the two iovecs summed
}

TEST_F(IoUring, OpenStatxAndCloseByTheRing) {
    auto j = record({workload_bin(), "uring", "--file", src, "--chunk", "4096", "--depth", "8", "--ring-meta",
                     "--op", "write", "--vectored"});
    if (auto why = missing(j); !why.empty()) GTEST_SKIP() << "io_uring probes not attached: " << why;
    expect_uring(j, "write", kSize / 4096, 4096);
    const auto& u = j["paths"]["io_uring"];
    EXPECT_EQ(u["open"]["calls"], 1);
    EXPECT_EQ(u["open"]["errors"], 0);
    EXPECT_EQ(u["stat"]["calls"], 1);
    EXPECT_EQ(u["close"]["calls"], 1);
    // The workload's only syscall-path calls of these classes: the ring's close.
    EXPECT_EQ(j["totals"]["open"]["calls"], 1);
    EXPECT_EQ(j["totals"]["stat"]["calls"], 1);
    EXPECT_EQ(j["totals"]["close"]["calls"], 2);
    // The file opened by the ring is named (file record at completion) and
    // its open and close are its own.
    auto f = file_entry(j, src);
    EXPECT_EQ(f["ops"]["open"]["calls"], 1);
    EXPECT_EQ(f["ops"]["close"]["calls"], 1);
    EXPECT_EQ(f["ops"]["stat"]["calls"], 0);  // statx by path: per process only
    EXPECT_EQ(f["paths"]["io_uring"]["open"]["calls"], 1);
    EXPECT_EQ(f["paths"]["io_uring"]["close"]["calls"], 1);
    EXPECT_EQ(f["size"], kSize);
}

// The queue depth a job reached: one request at a time is depth 1 exactly
// (and the shallow_async finding says so); D per io_uring_enter is deeper.
TEST_F(IoUring, QueueDepthOneVersusEight) {
    const std::string big = dir / "big.bin";
    constexpr uint64_t kBig = 8 << 20, kChunk = 4096;
    ASSERT_EQ(run({workload_bin(), "make-file", "--file", big, "--size", std::to_string(kBig)}).exit_status,
              0);
    const auto run_depth = [&](const char* depth) {
        return record(
            {workload_bin(), "uring", "--file", big, "--chunk", "4096", "--depth", depth, "--direct"});
    };
    auto d1 = run_depth("1");
    if (auto why = missing(d1); !why.empty()) GTEST_SKIP() << "io_uring probes not attached: " << why;
    auto d8 = run_depth("8");
    const auto async_of = [](const nlohmann::json& j) {
        EXPECT_EQ(j["processes"].size(), 1u);
        return j["processes"][0].value("async", nlohmann::json::object());
    };
    const auto a1 = async_of(d1), a8 = async_of(d8);
    ASSERT_TRUE(a1.contains("mean_depth")) << d1["processes"];
    ASSERT_TRUE(a8.contains("mean_depth")) << d8["processes"];
    std::printf("uring depth 1: mean %.3f max %llu busy %llu ns; depth 8: mean %.3f max %llu busy %llu ns\n",
                a1["mean_depth"].get<double>(), a1["max_depth"].get<unsigned long long>(),
                a1["busy_ns"].get<unsigned long long>(), a8["mean_depth"].get<double>(),
                a8["max_depth"].get<unsigned long long>(), a8["busy_ns"].get<unsigned long long>());
    for (const auto* a : {&a1, &a8}) {
        EXPECT_EQ((*a)["requests"], kBig / kChunk);
        EXPECT_EQ((*a)["clipped"], 0);
    }
    EXPECT_EQ(a1["max_depth"], 1);
    EXPECT_DOUBLE_EQ(a1["mean_depth"].get<double>(), 1.0);
    EXPECT_LE(a8["max_depth"].get<uint64_t>(), 8u);
    EXPECT_GE(a8["max_depth"].get<uint64_t>(), 2u);
    EXPECT_GT(a8["mean_depth"].get<double>(), 1.5 * a1["mean_depth"].get<double>());
    // The file's depth is the one process's.
    EXPECT_EQ(file_entry(d1, big)["async"]["max_depth"], 1);
    const auto has = [](const nlohmann::json& j, const char* id) {
        for (const auto& f : j["findings"])
            if (f["id"] == id) return true;
        return false;
    };
    EXPECT_TRUE(has(d1, "shallow_async")) << d1["findings"];
    EXPECT_FALSE(has(d8, "shallow_async")) << d8["findings"];
}

}  // namespace
}  // namespace iolens::test
