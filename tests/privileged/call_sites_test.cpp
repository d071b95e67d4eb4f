// End-to-end: record --stacks names the functions that issued the I/O
// (docs/call-sites.md). tests/callsite/: distinct functions of a program and
// of a shared library read distinct files of known sizes, so each function
// must be charged exactly the bytes it read or wrote.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <map>

#include "support.h"

namespace iolens::test {
namespace {

constexpr uint64_t kMiB = 1u << 20;

const char* callsite_bin() { return IOLENS_CALLSITE_BIN; }

struct Bytes {
    uint64_t read = 0, write = 0, calls = 0, stacks = 0;
};

// The caller of each call site: its innermost frame outside libc and the
// dynamic loader, by function name without its arguments ("demo::read_alpha"),
// or "[module+0xoffset]" when it has no name.
std::map<std::string, Bytes> by_caller(const nlohmann::json& report) {
    std::map<std::string, Bytes> out;
    for (const auto& s : report["call_sites"]["sites"]) {
        std::string who = "[libc]";
        for (const auto& f : s["frames"]) {
            const std::string module = f["module"].is_string() ? f["module"].get<std::string>() : "";
            const std::string base = module.substr(module.rfind('/') + 1);
            if (base.rfind("libc.so", 0) == 0 || base.rfind("ld-linux", 0) == 0) continue;
            if (f["function"].is_string()) {
                who = f["function"].get<std::string>();
                who = who.substr(0, who.find('('));
            } else {
                who = "[" + base + "+" + std::to_string(f["offset"].get<uint64_t>()) + "]";
            }
            break;
        }
        auto& b = out[who];
        b.read += s["read_bytes"].get<uint64_t>();
        b.write += s["write_bytes"].get<uint64_t>();
        b.calls += s["calls"].get<uint64_t>();
        b.stacks += s["stacks"].get<uint64_t>();
    }
    return out;
}

class CallSites : public ::testing::Test {
protected:
    void SetUp() override {
        if (!is_root()) GTEST_SKIP() << "needs root (CAP_BPF, CAP_PERFMON) to load BPF programs";
    }
    nlohmann::json record(const std::vector<std::string>& flags, const std::string& bin) {
        std::vector<std::string> cmd = {iolens_bin(), "record",           "-f", "-o", dir / "rec.iolens",
                                        "--json",     dir / "report.json"};
        cmd.insert(cmd.end(), flags.begin(), flags.end());
        cmd.insert(cmd.end(), {"--", bin, dir.path()});
        last = run(cmd);
        EXPECT_EQ(last.exit_status, 0) << last.err;
        EXPECT_NE(last.out.find("read alpha=1048576 beta=3145728 gamma=2097152"), std::string::npos)
            << last.out;
        return load_json(dir / "report.json");
    }
    TempDir dir;
    RunResult last;
};

TEST_F(CallSites, EachFunctionIsChargedExactlyTheBytesItMoved) {
    const auto j = record({"--stacks"}, callsite_bin());
    EXPECT_EQ(j["capture"]["lost_events"], 0);
    ASSERT_TRUE(j.contains("call_sites")) << "no call_sites in the report";
    EXPECT_EQ(j["call_sites"]["spec"], "first,1/64");
    EXPECT_EQ(j["call_sites"]["calls_without"], 0);
    const auto callers = by_caller(j);
    ASSERT_TRUE(callers.count("demo::read_alpha")) << j["call_sites"].dump(1);
    EXPECT_EQ(callers.at("demo::read_alpha").read, 1 * kMiB);
    ASSERT_TRUE(callers.count("demo::read_beta"));  // on a second thread
    EXPECT_EQ(callers.at("demo::read_beta").read, 3 * kMiB);
    ASSERT_TRUE(callers.count("callsite_lib_read_gamma"));  // in the shared library
    EXPECT_EQ(callers.at("callsite_lib_read_gamma").read, 2 * kMiB);
    ASSERT_TRUE(callers.count("demo::make_files"));
    EXPECT_EQ(callers.at("demo::make_files").write, 6 * kMiB);
    EXPECT_EQ(callers.at("demo::make_files").read, 0u);
    // The library's function is named with its library.
    bool lib_named = false;
    for (const auto& s : j["call_sites"]["sites"])
        for (const auto& f : s["frames"])
            if (f["function"] == "callsite_lib_read_gamma")
                lib_named =
                    f["module"].get<std::string>().find("libiolens_callsite_lib.so") != std::string::npos;
    EXPECT_TRUE(lib_named);
    // Sampled: far fewer stacks than calls.
    EXPECT_LT(j["call_sites"]["stacks"].get<uint64_t>(), j["call_sites"]["calls"].get<uint64_t>() / 4);

    // The folded stacks carry the same bytes.
    auto folded = run({iolens_bin(), "report", "--folded", dir / "rec.iolens"});
    ASSERT_EQ(folded.exit_status, 0) << folded.err;
    uint64_t alpha = 0;
    std::istringstream lines(folded.out);
    for (std::string line; std::getline(lines, line);)
        if (line.find("demo::read_alpha") != std::string::npos)
            alpha += std::stoull(line.substr(line.rfind(' ') + 1));
    EXPECT_EQ(alpha, 1 * kMiB) << folded.out;
    // The trace export carries each call's call site as a slice argument.
    auto exported =
        run({iolens_bin(), "export", "--format", "chrome", "-o", dir / "trace.json", dir / "rec.iolens"});
    ASSERT_EQ(exported.exit_status, 0) << exported.err;
    uint64_t alpha_reads = 0;
    const auto trace = load_json(dir / "trace.json");
    for (const auto& e : trace["traceEvents"])
        if (e.contains("args") && e["args"].contains("call_site") && e["args"].contains("ret") &&
            e["args"]["call_site"].get<std::string>().find("demo::read_alpha") != std::string::npos &&
            e["args"]["ret"].get<int64_t>() > 0 && e["name"] == "pread64")
            alpha_reads++;
    EXPECT_EQ(alpha_reads, 256u);  // 1 MiB in 4 KiB preads
    // Perfetto: the same argument, its name and values interned strings.
    exported = run({iolens_bin(), "export", "-o", dir / "trace.pftrace", dir / "rec.iolens"});
    ASSERT_EQ(exported.exit_status, 0) << exported.err;
    std::ifstream pf(dir / "trace.pftrace", std::ios::binary);
    const std::string proto((std::istreambuf_iterator<char>(pf)), std::istreambuf_iterator<char>());
    EXPECT_NE(proto.find("call_site"), std::string::npos);
    EXPECT_NE(proto.find("demo::read_alpha"), std::string::npos);
    // The terminal report names them.
    auto text = run({iolens_bin(), "report", dir / "rec.iolens"});
    EXPECT_NE(text.out.find("Call sites"), std::string::npos);
    EXPECT_NE(text.out.find("demo::read_alpha"), std::string::npos);
}

TEST_F(CallSites, EveryCallHasItsOwnStackWithAll) {
    const auto j = record({"--stacks=all"}, callsite_bin());
    ASSERT_TRUE(j.contains("call_sites"));
    EXPECT_EQ(j["call_sites"]["calls_without"], 0);
    for (const auto& s : j["call_sites"]["sites"]) EXPECT_EQ(s["stacks"], s["calls"]) << s.dump();
    const auto callers = by_caller(j);
    EXPECT_EQ(callers.at("demo::read_alpha").read, 1 * kMiB);
    EXPECT_EQ(callers.at("demo::read_alpha").calls, callers.at("demo::read_alpha").stacks);
}

TEST_F(CallSites, NamesComeFromTheRecordingAfterTheBinaryIsGone) {
    // A copy of the program, removed before the report: its functions are
    // named from the SYMBOLS chunk the recorder wrote.
    const std::string copy = dir / "copied-workload";
    std::filesystem::copy_file(callsite_bin(), copy);
    ASSERT_EQ(chmod(copy.c_str(), 0755), 0);
    record({"--stacks"}, copy);
    std::filesystem::remove(copy);
    auto r = run({iolens_bin(), "report", "--json", dir / "again.json", dir / "rec.iolens"});
    ASSERT_EQ(r.exit_status, 0) << r.err;
    const auto callers = by_caller(load_json(dir / "again.json"));
    ASSERT_TRUE(callers.count("demo::read_alpha"));
    EXPECT_EQ(callers.at("demo::read_alpha").read, 1 * kMiB);
}

TEST_F(CallSites, AStrippedBinaryFallsBackToFileAndOffset) {
    const auto j = record({"--stacks"}, std::string(callsite_bin()) + "-stripped");
    const auto callers = by_caller(j);
    // The library is not stripped: still named.
    ASSERT_TRUE(callers.count("callsite_lib_read_gamma"));
    EXPECT_EQ(callers.at("callsite_lib_read_gamma").read, 2 * kMiB);
    // The program's functions are file + offset, each still with its bytes:
    // one caller read 1 MiB (alpha), one 3 MiB (beta).
    std::vector<uint64_t> unnamed_reads;
    for (const auto& [who, b] : callers)
        if (who.find("-stripped+") != std::string::npos && b.read) unnamed_reads.push_back(b.read);
    std::sort(unnamed_reads.begin(), unnamed_reads.end());
    EXPECT_EQ(unnamed_reads, (std::vector<uint64_t>{1 * kMiB, 3 * kMiB}));
    bool noted = false;
    for (const auto& n : j["call_sites"]["notes"])
        noted |= n.get<std::string>().find("-stripped") != std::string::npos;
    EXPECT_TRUE(noted) << j["call_sites"]["notes"].dump();
}

// The module basenames of a call site's frames, innermost first, once each.
std::vector<std::string> modules_of(const nlohmann::json& site) {
    std::vector<std::string> out;
    for (const auto& f : site["frames"]) {
        if (!f["module"].is_string()) continue;
        const std::string m = f["module"].get<std::string>();
        const std::string base = m.substr(m.rfind('/') + 1);
        if (std::find(out.begin(), out.end(), base) == out.end()) out.push_back(base);
    }
    return out;
}

bool has_module(const nlohmann::json& site, const std::string& needle) {
    for (const auto& m : modules_of(site))
        if (m.find(needle) != std::string::npos) return true;
    return false;
}

TEST_F(CallSites, APyTorchJobsReadsAreGroupedByLibrary) {
    // Debian's Python, torch and torchvision: no frame pointers anywhere, so
    // these stacks are the recorder's .eh_frame unwinding.
    if (run({"/usr/bin/python3", "-c", "import torch, torchvision"}).exit_status != 0)
        GTEST_SKIP() << "/usr/bin/python3 has no torch/torchvision (tools/install-deps.sh installs them)";
    const std::string job = std::string(IOLENS_SOURCE_DIR) + "/tests/callsite/torch_job.py";
    last = run({iolens_bin(), "record", "--stacks", "-f", "-o", dir / "rec.iolens", "--json",
                dir / "report.json", "--", "/usr/bin/python3", job, dir / "d"});
    ASSERT_EQ(last.exit_status, 0) << last.err;
    // The job's line (iolens's summary follows it on stdout).
    const auto at = last.out.find("{\"pil\"");
    ASSERT_NE(at, std::string::npos) << last.out;
    const auto sizes = nlohmann::json::parse(last.out.substr(at, last.out.find('\n', at) - at));
    const auto j = load_json(dir / "report.json");
    ASSERT_TRUE(j.contains("call_sites"));
    EXPECT_EQ(j["capture"]["lost_events"], 0);
    uint64_t pil = 0, ckpt = 0;
    bool pil_by_python = true, ckpt_through_libtorch = false, tv_by_torchvision = false;
    const std::string d = dir / "d";
    for (const auto& s : j["call_sites"]["sites"]) {
        const std::string top = s["top_file"].is_string() ? s["top_file"].get<std::string>() : "";
        const auto mods = modules_of(s);
        if (top.rfind(d + "/pil/", 0) == 0) {
            // The DataLoader's workers (forked) read the JPEGs through PIL's
            // Python file object: the interpreter's read.
            pil += s["read_bytes"].get<uint64_t>();
            if (s["read_bytes"].get<uint64_t>() && !has_module(s, "python3")) pil_by_python = false;
        }
        if (top == d + "/ckpt.pt") {
            ckpt += s["read_bytes"].get<uint64_t>();
            ckpt_through_libtorch |= has_module(s, "libtorch");
        }
        // torchvision.io.read_file: libtorch maps the file, called from
        // torchvision's image extension.
        if (top.rfind(d + "/tv/", 0) == 0 && has_module(s, "libtorch"))
            tv_by_torchvision |= has_module(s, "image.cpython");
    }
    EXPECT_EQ(pil, sizes["pil"].get<uint64_t>());
    EXPECT_TRUE(pil_by_python);
    EXPECT_GE(ckpt, sizes["ckpt"].get<uint64_t>());
    EXPECT_TRUE(ckpt_through_libtorch);
    EXPECT_TRUE(tv_by_torchvision);
    // By library: the interpreter read the most.
    ASSERT_FALSE(j["call_sites"]["libraries"].empty());
    EXPECT_NE(j["call_sites"]["libraries"][0]["module"].get<std::string>().find("python3"),
              std::string::npos);
}

TEST_F(CallSites, NoSectionWithoutStacks) {
    const auto j = record({}, callsite_bin());
    EXPECT_FALSE(j.contains("call_sites"));
    auto folded = run({iolens_bin(), "report", "--folded", dir / "rec.iolens"});
    EXPECT_EQ(folded.exit_status, 1);
    EXPECT_NE(folded.err.find("--stacks"), std::string::npos);
}

}  // namespace
}  // namespace iolens::test
