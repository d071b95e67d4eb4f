// shallow_async: a job that uses AIO or io_uring but keeps about one request
// in flight is told so; and small_reads counts async reads like the others.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/findings.h"
#include "analysis_fixtures.h"

using namespace iolens::model;
using namespace iolens::test;
using iolens::analysis::analyze;
using iolens::analysis::Thresholds;

namespace {

const Finding* find_id(const std::vector<Finding>& fs, const std::string& id) {
    for (const auto& f : fs)
        if (f.id == id) return &f;
    return nullptr;
}

// The clean job plus a loader process (pid 300) reading through `path`:
// n 128 KiB requests of 2 ms each, `depth` in flight on average, busy for
// n * 2 ms / depth of the 100 s capture.
Report with_async_loader(int path, uint64_t n, double depth) {
    Report r = clean_report();
    auto p = process(300, 100, "loader");
    const uint64_t lat = 2'000'000;
    p.ops[IOLENS_OP_READ] = op(n, 128 * kKiB, n * lat);
    p.paths.by[path][IOLENS_OP_READ] = {n, 0, n * 128 * kKiB, n * 128 * kKiB, n * lat};
    p.async.requests = n;
    p.async.request_ns = n * lat;
    p.async.busy_ns = static_cast<uint64_t>(static_cast<double>(n * lat) / depth);
    p.async.max_depth = static_cast<uint64_t>(depth + 0.999);
    r.processes.push_back(p);
    r.paths.by[path][IOLENS_OP_READ] = p.paths.by[path][IOLENS_OP_READ];
    return r;
}

}  // namespace

TEST(AnalysisShallowAsync, FiresOnDepthOne) {
    const auto fs = analyze(with_async_loader(IOLENS_PATH_IO_URING, 10'000, 1.0));  // 20 s busy
    const Finding* f = find_id(fs, "shallow_async");
    ASSERT_NE(f, nullptr);
    EXPECT_STREQ(severity_name(f->severity), "warn");
    EXPECT_EQ(f->evidence["pid"], 300);
    EXPECT_EQ(f->evidence["paths"], "io_uring");
    EXPECT_EQ(f->evidence["async_requests"], 10'000u);
    EXPECT_EQ(f->evidence["async_reads"], 10'000u);
    EXPECT_EQ(f->evidence["mean_depth"], 1.0);
    EXPECT_EQ(f->evidence["max_depth"], 1u);
    EXPECT_EQ(f->evidence["busy_ns"], 20 * kS);
    EXPECT_EQ(f->evidence["busy_capture_share"], 0.2);
    EXPECT_EQ(f->evidence["processes_affected"], 1u);
    EXPECT_NE(f->title.find("1.00 requests in flight"), std::string::npos) << f->title;
    EXPECT_NE(f->recommendation.find("iodepth"), std::string::npos);
}

TEST(AnalysisShallowAsync, AioToo) {
    const auto fs = analyze(with_async_loader(IOLENS_PATH_AIO, 10'000, 1.2));
    const Finding* f = find_id(fs, "shallow_async");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->evidence["paths"], "aio");
}

TEST(AnalysisShallowAsync, SilentWhenTheQueueIsKeptFull) {
    EXPECT_EQ(find_id(analyze(with_async_loader(IOLENS_PATH_IO_URING, 10'000, 8.0)), "shallow_async"),
              nullptr);
    // Depth just at the threshold does not fire.
    EXPECT_EQ(find_id(analyze(with_async_loader(IOLENS_PATH_IO_URING, 10'000,
                                                Thresholds{}.shallow_async_max_mean_depth)),
                      "shallow_async"),
              nullptr);
}

TEST(AnalysisShallowAsync, SilentForFewRequestsOrLittleTime) {
    // 999 requests.
    EXPECT_EQ(find_id(analyze(with_async_loader(IOLENS_PATH_IO_URING, 999, 1.0)), "shallow_async"), nullptr);
    // 2,000 requests busy 4 s: 4% of the capture.
    EXPECT_EQ(find_id(analyze(with_async_loader(IOLENS_PATH_IO_URING, 2'000, 1.0)), "shallow_async"),
              nullptr);
}

TEST(AnalysisShallowAsync, TheLongestBusyProcessIsTheHeadline) {
    Report r = with_async_loader(IOLENS_PATH_IO_URING, 10'000, 1.0);
    Report other = with_async_loader(IOLENS_PATH_AIO, 20'000, 1.0);
    other.processes.back().info.pid = 301;
    r.processes.push_back(other.processes.back());
    const auto fs = analyze(r);
    const Finding* f = find_id(fs, "shallow_async");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->evidence["pid"], 301);
    EXPECT_EQ(f->evidence["processes_affected"], 2u);
}

TEST(AnalysisShallowAsync, SmallReadsCountAsyncReads) {
    Report r = clean_report();
    r.totals[IOLENS_OP_READ] = op(200'000, 4 * kKiB, 20 * kS);
    r.paths.by[IOLENS_PATH_IO_URING][IOLENS_OP_READ].calls = 150'000;
    r.paths.by[IOLENS_PATH_AIO][IOLENS_OP_READ].calls = 10'000;
    auto fs = analyze(r);
    const Finding* f = find_id(fs, "small_reads");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->evidence["read_calls"], 200'000u);
    EXPECT_EQ(f->evidence["async_read_calls"], 160'000u);
    // Without async reads the key is absent.
    r.paths = {};
    fs = analyze(r);
    f = find_id(fs, "small_reads");
    ASSERT_NE(f, nullptr);
    EXPECT_FALSE(f->evidence.contains("async_read_calls"));
}

TEST(AnalysisShallowAsync, Documented) {
    const auto doc_path =
        std::filesystem::path(IOLENS_TEST_DATA_DIR).parent_path().parent_path() / "docs" / "findings.md";
    std::ifstream in(doc_path);
    ASSERT_TRUE(in) << "docs/findings.md missing";
    std::stringstream ss;
    ss << in.rdbuf();
    for (const char* key : {"`shallow_async`", "`shallow_async_min_requests`",
                            "`shallow_async_max_mean_depth`", "`async_read_calls`", "`busy_capture_share`"})
        EXPECT_NE(ss.str().find(key), std::string::npos) << key;
}
