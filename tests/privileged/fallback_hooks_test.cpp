// The raw_tp fallback must produce exactly what the preferred tp_btf hooks
// produce. This kernel has both, so the fallback is forced and compared side
// by side on the same known workload.
#include <gtest/gtest.h>

#include "support.h"

namespace iolens::test {
namespace {

nlohmann::json record_known(const TempDir& dir, const std::string& hook)
{
    const std::string d = dir / ("d-" + hook);
    auto r = run({iolens_bin(), "record", "--force-hook", hook, "-o", dir / (hook + ".iolens"), "--json",
                  dir / (hook + ".json"), "--", workload_bin(), "known", "--dir", d});
    EXPECT_EQ(r.exit_status, 0) << r.err;
    return load_json(dir / (hook + ".json"));
}

// The parts of a report that do not depend on timing, pids or paths.
nlohmann::json comparable(const nlohmann::json& report)
{
    nlohmann::json out;
    for (const auto& [op, stats] : report["totals"].items())
        out[op] = {stats["calls"], stats["errors"], stats["bytes"], stats["requested_bytes"],
                   stats["size_bytes"]["buckets"]};
    out["processes"] = report["processes"].size();
    out["files"] = files_with_syscalls(report);
    out["lost"] = report["capture"]["lost_events"];
    return out;
}

TEST(FallbackHooks, RawTracepointsCountExactlyWhatBtfTracepointsCount)
{
    if (!is_root())
        GTEST_SKIP() << "needs root (CAP_BPF, CAP_PERFMON) to load BPF programs";
    TempDir dir;
    auto btf = record_known(dir, "tp_btf");
    auto raw = record_known(dir, "raw_tp");
    for (const auto& p : raw["capture"]["probes"]) {
        if (p["name"] == "blocking") {  // needs BTF task pointers: no raw_tp variant
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

}  // namespace
}  // namespace iolens::test
