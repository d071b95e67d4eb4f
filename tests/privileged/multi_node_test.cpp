// Many nodes' recordings as one report (issue #16; docs/multi-node.md): two
// "nodes" on this machine, each an `iolens record` in a UTS namespace of its
// own (unshare -u, its own host name) running its share of a 4-rank job;
// rank 3 on node-b reads 4 times its share.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "support.h"

namespace iolens::test {
namespace {

class MultiNode : public ::testing::Test {
protected:
    void SetUp() override {
        if (!is_root()) GTEST_SKIP() << "needs root (CAP_BPF, CAP_PERFMON; unshare -u)";
        auto r = run({workload_bin(), "make-dataset", "--dir", dir / "ds", "--files", "32", "--size", "2m"});
        ASSERT_EQ(r.exit_status, 0) << r.err;
    }
    // One node: its host name, the job id in its environment, its ranks.
    RunResult node(const std::string& host, const std::string& job, int base, bool straggler = false) {
        std::string cmd = "hostname " + host + " && exec \"$0\" \"$@\"";
        std::vector<std::string> argv{"env",
                                      "SLURM_JOB_ID=" + job,
                                      "unshare",
                                      "-u",
                                      "sh",
                                      "-c",
                                      cmd,
                                      iolens_bin(),
                                      "record",
                                      "-o",
                                      dir / ("job-%j/%h.iolens"),
                                      "--",
                                      workload_bin(),
                                      "ranks",
                                      "--dir",
                                      dir / "ds",
                                      "--files",
                                      "32",
                                      "--size",
                                      "2m",
                                      "--ranks",
                                      "2",
                                      "--world",
                                      "4",
                                      "--rank-base",
                                      std::to_string(base),
                                      "--workers",
                                      "1",
                                      "--epochs",
                                      "3",
                                      "--read-size",
                                      "1m",
                                      "--compute-us",
                                      "500",
                                      "--markers"};
        if (straggler) argv.insert(argv.end(), {"--straggler", "3", "--straggler-factor", "4"});
        return run(argv);
    }
    TempDir dir;
};

TEST_F(MultiNode, OneReportOfTwoNodesNamesTheStragglersNodeAndCause) {
    ASSERT_EQ(node("node-a", "4242", 0).exit_status, 0);
    ASSERT_EQ(node("node-b", "4242", 2, true).exit_status, 0);
    const std::string a = dir / "job-4242/node-a.iolens", b = dir / "job-4242/node-b.iolens";
    auto r = run({iolens_bin(), "report", a, b, "--json", dir / "job.json"});
    ASSERT_EQ(r.exit_status, 0) << r.err;
    EXPECT_NE(r.out.find("Nodes (2 recordings merged"), std::string::npos) << r.out;
    const auto j = load_json(dir / "job.json");

    // Every rank once, with its node; its read bytes exact: 8 files of 2 MiB
    // per epoch, 3 epochs, rank 3 each sample 4 times.
    ASSERT_EQ(j["ranks"].size(), 4u);
    for (int k = 0; k < 4; ++k) {
        const auto& rank = j["ranks"][k];
        EXPECT_EQ(rank["rank"], k);
        EXPECT_EQ(rank["node"], k < 2 ? "node-a" : "node-b");
        EXPECT_EQ(rank["ops"]["read"]["bytes"], (k == 3 ? 4u : 1u) * 3 * 8 * (2u << 20)) << "rank " << k;
    }
    ASSERT_EQ(j["nodes"].size(), 2u);
    EXPECT_EQ(j["nodes"][0]["host"], "node-a");
    EXPECT_EQ(j["nodes"][0]["ranks"], nlohmann::json::array({0, 1}));
    EXPECT_EQ(j["nodes"][1]["ranks"], nlohmann::json::array({2, 3}));
    EXPECT_EQ(j["capture"]["job_id"], "4242");
    EXPECT_EQ(j["capture"]["hostname"], "node-a,node-b");
    // Epochs aligned by index: 3, each with the 4 ranks.
    ASSERT_EQ(j["epochs"].size(), 3u);
    for (const auto& e : j["epochs"]) EXPECT_EQ(e["ranks"].size(), 4u);

    ASSERT_FALSE(j["findings"].empty());
    const auto& f = j["findings"][0];
    EXPECT_EQ(f["id"], "rank_imbalance") << j["findings"];
    EXPECT_EQ(f["evidence"]["straggler_rank"], 3);
    EXPECT_EQ(f["evidence"]["straggler_node"], "node-b");
    EXPECT_EQ(f["evidence"]["cause"], "more_bytes");
    EXPECT_NE(f["title"].get<std::string>().find("node node-b"), std::string::npos) << f["title"];
}

// The partials path: each node's report made where its recording is
// (`report --partial`), merged from the partials alone: the same report as
// the direct merge, figures and findings.
TEST_F(MultiNode, PartialsMergeToTheSameReport) {
    ASSERT_EQ(node("node-a", "4242", 0).exit_status, 0);
    ASSERT_EQ(node("node-b", "4242", 2, true).exit_status, 0);
    const std::string a = dir / "job-4242/node-a.iolens", b = dir / "job-4242/node-b.iolens";
    auto r = run({iolens_bin(), "report", a, b, "--json", dir / "direct.json"});
    ASSERT_EQ(r.exit_status, 0) << r.err;
    for (const std::string host : {"node-a", "node-b"}) {
        r = run({iolens_bin(), "report", "--partial", dir / ("job-4242/" + host + ".iolens"), "-o",
                 dir / (host + ".part")});
        ASSERT_EQ(r.exit_status, 0) << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
    }
    r = run({iolens_bin(), "report", dir / "node-a.part", dir / "node-b.part", "--json", dir / "parts.json"});
    ASSERT_EQ(r.exit_status, 0) << r.err;
    EXPECT_NE(r.out.find("Nodes (2 recordings merged"), std::string::npos) << r.out;
    auto direct = load_json(dir / "direct.json"), parts = load_json(dir / "parts.json");
    // The recordings' names differ (the partials'), nothing else.
    for (auto* j : {&direct, &parts})
        for (auto& n : (*j)["nodes"]) n.erase("recording");
    EXPECT_EQ(parts, direct);
    // A partial of one node reports that node, as its recording does.
    r = run({iolens_bin(), "report", dir / "node-a.part"});
    EXPECT_EQ(r.exit_status, 0) << r.err;
    // Refusals: two inputs, no -o, -o without --partial, an existing file.
    EXPECT_EQ(run({iolens_bin(), "report", "--partial", a, b, "-o", dir / "x.part"}).exit_status, 2);
    EXPECT_EQ(run({iolens_bin(), "report", "--partial", a}).exit_status, 2);
    EXPECT_EQ(run({iolens_bin(), "report", a, "-o", dir / "x.part"}).exit_status, 2);
    EXPECT_EQ(run({iolens_bin(), "report", "--partial", a, "-o", dir / "node-a.part"}).exit_status, 2);
}

// `export` of many recordings: one DFTracer trace per node in a directory,
// which Dask (as DFAnalyzer does) reads as one job: each rank's read bytes
// from the traces equal the merged report's, each host by its hhash.
TEST_F(MultiNode, ExportOfManyIsOneJobForDask) {
    ASSERT_EQ(node("node-a", "4242", 0).exit_status, 0);
    ASSERT_EQ(node("node-b", "4242", 2, true).exit_status, 0);
    const std::string a = dir / "job-4242/node-a.iolens", b = dir / "job-4242/node-b.iolens";
    auto r = run({iolens_bin(), "report", a, b, "--json", dir / "job.json"});
    ASSERT_EQ(r.exit_status, 0) << r.err;
    r = run({iolens_bin(), "export", "--format", "dftracer", "-o", dir / "trace", a, b});
    ASSERT_EQ(r.exit_status, 0) << r.err;
    ASSERT_TRUE(std::filesystem::exists(dir / "trace/node-a.pfw.gz")) << r.err;
    ASSERT_TRUE(std::filesystem::exists(dir / "trace/node-b.pfw.gz")) << r.err;
    // Again: refused without -f, then replaced with it.
    EXPECT_EQ(run({iolens_bin(), "export", "--format", "dftracer", "-o", dir / "trace", a, b}).exit_status,
              2);
    EXPECT_EQ(
        run({iolens_bin(), "export", "--format", "dftracer", "-f", "-o", dir / "trace", a, b}).exit_status,
        0);
    const std::string script = R"(
import json, sys
import dask.bag as db
READS = {"read", "pread", "pread64", "readv", "preadv"}
def parse(line):
    line = line.strip()
    return [] if not line or line in "[]" else [json.loads(line)]
ev = db.read_text(sys.argv[1] + "/*.pfw.gz", blocksize=None).map(parse).flatten()
reads = ev.filter(lambda e: e["cat"] == "POSIX" and e["name"] in READS and "rank" in e["args"])
by_rank = dict(reads.map(lambda e: (e["args"]["rank"], max(e["args"]["ret"], 0))).foldby(
    lambda kv: kv[0], lambda acc, kv: acc + kv[1], 0).compute())
hosts = set(ev.filter(lambda e: e["name"] == "HH").map(lambda e: e["args"]["name"]).compute())
print(json.dumps({"by_rank": {str(k): v for k, v in sorted(by_rank.items())}, "hosts": sorted(hosts)}))
)";
    r = run({"/usr/bin/python3", "-c", script, dir / "trace"});
    ASSERT_EQ(r.exit_status, 0) << r.err;
    const auto got = nlohmann::json::parse(r.out);
    EXPECT_EQ(got["hosts"], nlohmann::json::array({"node-a", "node-b"}));
    const auto job = load_json(dir / "job.json");
    ASSERT_EQ(job["ranks"].size(), 4u);
    for (const auto& rank : job["ranks"]) {
        const std::string k = std::to_string(rank["rank"].get<int>());
        ASSERT_TRUE(got["by_rank"].contains(k)) << got;
        EXPECT_EQ(got["by_rank"][k], rank["ops"]["read"]["bytes"]) << "rank " << k;
    }
}

TEST_F(MultiNode, ConflictingRecordingsAreRefused) {
    ASSERT_EQ(node("node-a", "4242", 0).exit_status, 0);
    ASSERT_EQ(node("node-c", "99", 2).exit_status, 0);
    const std::string a = dir / "job-4242/node-a.iolens", c = dir / "job-99/node-c.iolens";
    // One node twice.
    auto r = run({iolens_bin(), "report", a, a});
    EXPECT_EQ(r.exit_status, 1);
    EXPECT_NE(r.err.find("the same node twice"), std::string::npos) << r.err;
    // Two jobs: refused, then merged on request.
    r = run({iolens_bin(), "report", a, c});
    EXPECT_EQ(r.exit_status, 1);
    EXPECT_NE(r.err.find("recordings of different jobs"), std::string::npos) << r.err;
    r = run({iolens_bin(), "report", "--allow-mixed", a, c, "--json", dir / "mixed.json"});
    EXPECT_EQ(r.exit_status, 0) << r.err;
    EXPECT_EQ(load_json(dir / "mixed.json")["ranks"].size(), 4u);
}

}  // namespace
}  // namespace iolens::test
