// CaptureInfo / ProcessInfo <-> JSON (the recording's META, PROCESS, END chunks).
#include <gtest/gtest.h>

#include "recording/capture_json.h"

using namespace iolens::recording;
using nlohmann::json;

namespace {

CaptureInfo sample_capture() {
    CaptureInfo c;
    c.command = {"python3", "train.py", "--epochs", "3"};
    c.pids = {1234, 1240};
    c.start_unix_ns = 1700000000123456789ull;
    c.start_mono_ns = 987654321;
    c.duration_ns = 12'000'000'000ull;
    c.events = 1'000'000;
    c.lost_events = 12;
    c.lost_detail = {{"ring_buffer_full", 10}, {"no_thread_state", 2}};
    c.probes = {{"syscalls", "tp_btf/sys_enter", true, "one attach for all syscalls"},
                {"block", "tp/block/block_io_start", false, "tracepoint missing on this kernel"}};
    c.hostname = "gpu-node-7";
    c.kernel_release = "6.1.0-18-amd64";
    c.iolens_version = "0.1.0";
    c.exit_status = 0;
    c.partial = true;
    c.partial_reason = "recorder killed";
    c.devices = {{253u << 20, "vda"}, {(253u << 20) | 1, "vda1"}, {(259u << 20) | 0xfffff, "nvme0n1"}};
    CostInfo cost;
    cost.attach_ns = 120'000'000;
    cost.bpf = {{"process", 30'000, 51}, {"syscalls", 640'000'000, 3'000'000}};
    cost.bpf_sampled_share = 1.0 / 64;
    cost.bpf_timed_every = 64;
    cost.recorder_cpu_ns = 460'000'000;
    cost.recorder_max_rss_bytes = 200ull << 20;
    cost.job_cpu_ns = 990'000'000;
    c.cost = cost;
    return c;
}

void expect_same(const CaptureInfo& a, const CaptureInfo& b) {
    EXPECT_EQ(a.command, b.command);
    EXPECT_EQ(a.pids, b.pids);
    EXPECT_EQ(a.start_unix_ns, b.start_unix_ns);
    EXPECT_EQ(a.start_mono_ns, b.start_mono_ns);
    EXPECT_EQ(a.duration_ns, b.duration_ns);
    EXPECT_EQ(a.events, b.events);
    EXPECT_EQ(a.lost_events, b.lost_events);
    EXPECT_EQ(a.lost_detail, b.lost_detail);
    ASSERT_EQ(a.probes.size(), b.probes.size());
    for (size_t i = 0; i < a.probes.size(); ++i) {
        EXPECT_EQ(a.probes[i].name, b.probes[i].name);
        EXPECT_EQ(a.probes[i].hook, b.probes[i].hook);
        EXPECT_EQ(a.probes[i].attached, b.probes[i].attached);
        EXPECT_EQ(a.probes[i].reason, b.probes[i].reason);
    }
    EXPECT_EQ(a.hostname, b.hostname);
    EXPECT_EQ(a.kernel_release, b.kernel_release);
    EXPECT_EQ(a.iolens_version, b.iolens_version);
    EXPECT_EQ(a.exit_status, b.exit_status);
    EXPECT_EQ(a.partial, b.partial);
    EXPECT_EQ(a.partial_reason, b.partial_reason);
    EXPECT_EQ(a.devices, b.devices);
    ASSERT_EQ(a.cost.has_value(), b.cost.has_value());
    if (a.cost) {
        EXPECT_EQ(a.cost->attach_ns, b.cost->attach_ns);
        ASSERT_EQ(a.cost->bpf.size(), b.cost->bpf.size());
        for (size_t i = 0; i < a.cost->bpf.size(); ++i) {
            EXPECT_EQ(a.cost->bpf[i].family, b.cost->bpf[i].family);
            EXPECT_EQ(a.cost->bpf[i].run_ns, b.cost->bpf[i].run_ns);
            EXPECT_EQ(a.cost->bpf[i].runs, b.cost->bpf[i].runs);
        }
        EXPECT_EQ(a.cost->bpf_sampled_share, b.cost->bpf_sampled_share);
        EXPECT_EQ(a.cost->bpf_timed_every, b.cost->bpf_timed_every);
        EXPECT_EQ(a.cost->bpf_stats_unavailable, b.cost->bpf_stats_unavailable);
        EXPECT_EQ(a.cost->recorder_cpu_ns, b.cost->recorder_cpu_ns);
        EXPECT_EQ(a.cost->recorder_max_rss_bytes, b.cost->recorder_max_rss_bytes);
        EXPECT_EQ(a.cost->job_cpu_ns, b.cost->job_cpu_ns);
        EXPECT_EQ(a.cost->job_cpu_unavailable, b.cost->job_cpu_unavailable);
    }
}

}  // namespace

TEST(CaptureJson, RoundTripsThroughText) {
    const CaptureInfo c = sample_capture();
    const auto back = capture_from_json(json::parse(capture_to_json(c).dump()));
    ASSERT_TRUE(back.ok()) << back.error().message;
    expect_same(back.value(), c);
}

TEST(CaptureJson, CostTotalsAreSummedOverFamilies) {
    const json j = capture_to_json(sample_capture());
    EXPECT_EQ(j["cost"]["bpf_run_ns"], 640'030'000u);
    EXPECT_EQ(j["cost"]["bpf_runs"], 3'000'051u);
}

TEST(CaptureJson, TimedEveryIsWrittenOnlyWhenTheProgramsTimedThemselves) {
    // A recording whose BPF cost came from the kernel's statistics (made
    // before the programs timed their own runs, or with --bpf-stats always)
    // keeps the very JSON it had: no bpf_timed_every key, read back as 0.
    CaptureInfo c = sample_capture();
    EXPECT_EQ(capture_to_json(c)["cost"]["bpf_timed_every"], 64);
    c.cost->bpf_timed_every = 0;
    c.cost->bpf_sampled_share = 1.0;
    const json j = capture_to_json(c);
    EXPECT_FALSE(j["cost"].contains("bpf_timed_every"));
    const auto back = capture_from_json(j);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(back->cost->bpf_timed_every, 0u);
}

TEST(CaptureJson, CostIsNullWhenNotMeasuredAndJobCpuMayBeUnknown) {
    CaptureInfo c = sample_capture();
    c.cost->job_cpu_ns.reset();
    c.cost->job_cpu_unavailable = "pid 42 exited before the end of the capture";
    auto back = capture_from_json(capture_to_json(c));
    ASSERT_TRUE(back.ok()) << back.error().message;
    expect_same(back.value(), c);
    c.cost.reset();
    EXPECT_TRUE(capture_to_json(c).at("cost").is_null());
    back = capture_from_json(capture_to_json(c));
    ASSERT_TRUE(back.ok());
    EXPECT_FALSE(back->cost.has_value());
}

TEST(CaptureJson, NullExitStatusMeansNone) {
    CaptureInfo c = sample_capture();
    c.exit_status.reset();
    const json j = capture_to_json(c);
    EXPECT_TRUE(j.at("exit_status").is_null());
    const auto back = capture_from_json(j);
    ASSERT_TRUE(back.ok());
    EXPECT_FALSE(back->exit_status.has_value());
}

TEST(CaptureJson, MissingKeysKeepDefaults) {
    const auto c = capture_from_json(json::parse(R"({"hostname": "h", "future_key": [1, 2]})"));
    ASSERT_TRUE(c.ok()) << c.error().message;
    EXPECT_EQ(c->hostname, "h");
    EXPECT_TRUE(c->command.empty());
    EXPECT_EQ(c->events, 0u);
    EXPECT_FALSE(c->partial);
    EXPECT_FALSE(c->exit_status.has_value());
}

TEST(CaptureJson, WrongTypesAreErrorsNamingTheKey) {
    const char* bad[] = {
        R"({"events": "many"})",
        R"({"events": -1})",
        R"({"pids": [1, "x"]})",
        R"({"pids": [5000000000]})",
        R"({"command": "python3"})",
        R"({"partial": 1})",
        R"({"exit_status": "0"})",
        R"({"lost_detail": {"rb": -3}})",
        R"({"probes": [{"name": 3}]})",
        R"({"probes": {}})",
        R"({"hostname": null})",
        R"({"cost": {"attach_ns": -5}})",
        R"({"cost": {"bpf": [{"runs": "x"}]}})",
    };
    for (const char* text : bad) {
        const auto c = capture_from_json(json::parse(text));
        ASSERT_FALSE(c.ok()) << text;
        const std::string key = json::parse(text).begin().key();
        EXPECT_NE(c.error().message.find("\"" + key + "\""), std::string::npos)
            << text << " -> " << c.error().message;
    }
    EXPECT_FALSE(capture_from_json(json::array()).ok());
    EXPECT_FALSE(capture_from_json(json("x")).ok());
}

TEST(CaptureJson, UpdateAppliesEndOverMeta) {
    CaptureInfo meta = sample_capture();
    meta.duration_ns = 0;
    meta.exit_status.reset();
    meta.partial = false;
    CaptureInfo c = capture_from_json(capture_to_json(meta)).value();
    const json end = {{"duration_ns", 5}, {"events", 10}, {"exit_status", 1}};
    ASSERT_TRUE(update_capture_from_json(end, c).ok());
    EXPECT_EQ(c.duration_ns, 5u);
    EXPECT_EQ(c.events, 10u);
    EXPECT_EQ(c.exit_status, 1);
    EXPECT_EQ(c.command, meta.command);  // untouched by END
    EXPECT_EQ(c.probes.size(), 2u);

    // A bad key leaves the target as it was.
    const CaptureInfo before = c;
    EXPECT_FALSE(update_capture_from_json(json{{"duration_ns", 9}, {"events", "x"}}, c).ok());
    expect_same(c, before);
}

TEST(ProcessJson, RoundTripAndTolerance) {
    ProcessInfo p;
    p.pid = 42;
    p.ppid = 1;
    p.comm = "pt_data_worker";
    p.cmdline = {"python3", "-c", ""};
    p.start_ns = 10;
    p.end_ns = 20;
    p.exit_code = 9;
    const json j = process_to_json(p);
    for (const char* key : {"pid", "ppid", "comm", "cmdline", "start_ns", "end_ns", "exit_code"})
        EXPECT_TRUE(j.contains(key)) << key;
    const auto back = process_from_json(json::parse(j.dump()));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(back->pid, 42u);
    EXPECT_EQ(back->comm, "pt_data_worker");
    EXPECT_EQ(back->cmdline, p.cmdline);
    EXPECT_EQ(back->exit_code, 9);
    EXPECT_EQ(back->end_ns, 20u);

    const auto minimal = process_from_json(json{{"pid", 7}});
    ASSERT_TRUE(minimal.ok());
    EXPECT_EQ(minimal->pid, 7u);
    EXPECT_FALSE(minimal->exit_code.has_value());

    const auto bad = process_from_json(json{{"pid", "7"}});
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.error().message.find("\"pid\""), std::string::npos);
}

TEST(CaptureJson, DevicesAreMajorMinorNameObjects) {
    const json j = capture_to_json(sample_capture()).at("devices");
    ASSERT_TRUE(j.is_array());
    ASSERT_EQ(j.size(), 3u);
    EXPECT_EQ(j[0], json({{"major", 253}, {"minor", 0}, {"name", "vda"}}));  // by dev_t
    EXPECT_EQ(j[2], json({{"major", 259}, {"minor", 0xfffff}, {"name", "nvme0n1"}}));

    // Older recordings have no devices: the names fall back to major:minor.
    const auto old = capture_from_json(json{{"hostname", "h"}});
    ASSERT_TRUE(old.ok());
    EXPECT_TRUE(old->devices.empty());

    const char* bad[] = {
        R"({"devices": {"8:0": "sda"}})",
        R"({"devices": [{"major": 8, "name": "sda"}]})",
        R"({"devices": [{"major": 8, "minor": 0, "name": 5}]})",
        R"({"devices": [{"major": 4096, "minor": 0, "name": "x"}]})",
        R"({"devices": [{"major": 8, "minor": 1048576, "name": "x"}]})",
        R"({"devices": ["sda"]})",
    };
    for (const char* text : bad) {
        const auto c = capture_from_json(json::parse(text));
        ASSERT_FALSE(c.ok()) << text;
        EXPECT_NE(c.error().message.find("\"devices\""), std::string::npos) << c.error().message;
    }
}
