// The raw_tp fallback must produce exactly what the preferred tp_btf hooks
// produce. This kernel has both, so the fallback is forced and compared side
// by side on the same known workload.
#include <gtest/gtest.h>

#include "support.h"

namespace iolens::test {
namespace {

// Records the known workload with a forced hook kind or BPF build.
nlohmann::json record_known(const TempDir& dir, const std::string& hook, const std::string& variant = "") {
    const std::string tag = hook + variant;
    std::vector<std::string> cmd = {iolens_bin(),         "record", "-o", dir / (tag + ".iolens"), "--json",
                                    dir / (tag + ".json")};
    if (!hook.empty()) cmd.insert(cmd.end(), {"--force-hook", hook});
    if (!variant.empty()) cmd.insert(cmd.end(), {"--force-variant", variant});
    cmd.insert(cmd.end(), {"--", workload_bin(), "known", "--dir", dir / ("d-" + tag)});
    auto r = run(cmd);
    EXPECT_EQ(r.exit_status, 0) << r.err;
    return load_json(dir / (tag + ".json"));
}

// The BPF build each family was loaded from: "[direct]" at the end of its hook.
std::string variant_of(const nlohmann::json& report, const std::string& family) {
    for (const auto& p : report["capture"]["probes"])
        if (p["name"] == family) {
            const std::string hook = p["hook"];
            const auto open = hook.rfind('[');
            return open == std::string::npos ? "" : hook.substr(open + 1, hook.size() - open - 2);
        }
    return "";
}

// The parts of a report that do not depend on timing, pids or paths.
nlohmann::json comparable(const nlohmann::json& report) {
    nlohmann::json out;
    for (const auto& [op, stats] : report["totals"].items())
        out[op] = {stats["calls"], stats["errors"], stats["bytes"], stats["requested_bytes"],
                   stats["size_bytes"]["buckets"]};
    out["processes"] = report["processes"].size();
    out["files"] = files_with_syscalls(report);
    out["lost"] = report["capture"]["lost_events"];
    return out;
}

TEST(FallbackHooks, RawTracepointsCountExactlyWhatBtfTracepointsCount) {
    if (!is_root()) GTEST_SKIP() << "needs root (CAP_BPF, CAP_PERFMON) to load BPF programs";
    TempDir dir;
    auto btf = record_known(dir, "tp_btf");
    auto raw = record_known(dir, "raw_tp");
    for (const auto& p : raw["capture"]["probes"]) {
        // blocking and io_uring need BTF pointers (task, request): no raw_tp variant
        if (p["name"] == "blocking" || p["name"] == "io_uring") {
            EXPECT_EQ(p["attached"], false);
            EXPECT_FALSE(p["reason"].get<std::string>().empty());
            continue;
        }
        EXPECT_EQ(p["attached"], true) << p;
        EXPECT_EQ(p["hook"].get<std::string>().rfind("raw_tp/", 0), 0u) << p["hook"];
    }
    for (const auto& p : btf["capture"]["probes"])
        EXPECT_EQ(p["hook"].get<std::string>().rfind("tp_btf/", 0), 0u) << p["hook"];
    EXPECT_EQ(comparable(raw), comparable(btf));
    EXPECT_EQ(raw["totals"]["read"]["calls"], 34);  // docs/workload.md
}

// The builds for older kernels (task storage but no bpf_rdonly_cast: 5.11 to
// 6.1; no task storage at all: 5.8 to 5.10) run here when forced, and must
// count what the preferred build counts, page cache and blocked time included.
TEST(FallbackHooks, OlderKernelBuildsCountExactlyWhatTheDirectBuildCounts) {
    if (!is_root()) GTEST_SKIP() << "needs root (CAP_BPF, CAP_PERFMON) to load BPF programs";
    TempDir dir;
    auto direct = record_known(dir, "", "direct");
    auto standard = record_known(dir, "", "standard");
    auto legacy = record_known(dir, "", "legacy");
    for (const auto& family : {"syscalls", "pagecache", "blocking"}) {
        EXPECT_EQ(variant_of(standard, family), "standard") << family;
        EXPECT_EQ(variant_of(legacy, family), "legacy") << family;
    }
    EXPECT_EQ(variant_of(direct, "syscalls"), "direct");
    for (const auto* r : {&direct, &standard, &legacy})
        for (const auto& p : (*r)["capture"]["probes"]) EXPECT_EQ(p["attached"], true) << p;
    EXPECT_EQ(comparable(standard), comparable(direct));
    EXPECT_EQ(comparable(legacy), comparable(direct));
    EXPECT_EQ(legacy["totals"]["read"]["calls"], 34);  // docs/workload.md
}

}  // namespace
}  // namespace iolens::test
