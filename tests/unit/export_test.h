#pragma once
// A small recording with known events for the export tests: two ranks (ENV
// chunks), a DataLoader worker, epoch markers, reads with page-cache fields,
// an io_uring request, a write, off-CPU waits, page faults and block requests.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "model/rank_env.h"
#include "model_rank_records.h"
#include "recording/capture_json.h"
#include "recording/recording.h"

namespace iolens::test {

class ExportDir {
public:
    ExportDir() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "iolens-export-XXXXXX").string();
        if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
        path_ = tmpl;
    }
    ~ExportDir() { std::filesystem::remove_all(path_); }
    std::string operator/(const std::string& name) const { return path_ + "/" + name; }

private:
    std::string path_;
};

inline std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

inline constexpr uint64_t kT0 = 5'000'000'000ull;                 // CLOCK_MONOTONIC at the start
inline constexpr uint64_t kUnix0 = 1'765'000'000'000'000'000ull;  // realtime at the start

// What the recording holds, for the assertions.
struct KnownRecording {
    uint64_t posix_calls = 0;  // syscall records (not async)
    uint64_t async_requests = 0;
    uint64_t offcpu = 0;
};

// Writes the recording to path; complete = false leaves out the END chunk
// (a recorder that was killed).
inline KnownRecording write_known_recording(const std::string& path, bool complete = true) {
    KnownRecording k;
    recording::CaptureInfo cap;
    cap.command = {"python", "train.py"};
    cap.start_mono_ns = kT0;
    cap.start_unix_ns = kUnix0;
    cap.hostname = "node017";
    cap.devices[(8u << 20)] = "sda";
    auto w = recording::Writer::create(path, {});
    if (!w) std::abort();
    (void)(*w)->write_json_chunk(recording::ChunkType::Meta, recording::capture_to_json(cap).dump());
    for (uint32_t pid : {100u, 200u}) {
        nlohmann::json env = {{"pid", pid},
                              {"vars", {{"RANK", pid == 100 ? "0" : "1"}, {"WORLD_SIZE", "2"}}}};
        (void)(*w)->write_json_chunk(recording::ChunkType::Env, env.dump());
    }
    DlStream s;
    s.fork(100, 1, kT0).fork(200, 1, kT0).fork(101, 100, kT0 + kMs);
    s.file(7, "/data/train/a.bin").file(8, "/data/train/b \"quoted\".bin").file(9, "/ckpt/model.pt");
    for (uint32_t pid : {100u, 200u}) s.marker(pid, kT0 + 2 * kMs, "epoch/1");
    uint64_t t = kT0 + 3 * kMs;
    for (int epoch = 0; epoch < 2; ++epoch) {
        for (uint32_t pid : {101u, 200u}) {
            s.call({.pid = pid, .op = IOLENS_OP_OPEN, .start = t, .dur = 100, .ino = 7, .ret = 3});
            s.call({.pid = pid,
                    .start = t + 1000,
                    .dur = 50'000,
                    .ino = 7,
                    .ret = 65536,
                    .offset = 0,
                    .cache_in = epoch == 0 ? uint64_t{65536} : uint64_t{0}});
            s.call({.pid = pid, .start = t + 60'000, .dur = 20'000, .ino = 8, .ret = 4096, .offset = 8192});
            s.call({.pid = pid, .op = IOLENS_OP_CLOSE, .start = t + 90'000, .dur = 100, .ino = 7, .ret = 0});
            k.posix_calls += 4;
        }
        s.offcpu(100, t, t + 100'000);
        k.offcpu++;
        t += 200 * kMs;
        if (epoch == 0)
            for (uint32_t pid : {100u, 200u}) s.marker(pid, t, "epoch/2");
        t += kMs;
    }
    // A checkpoint write, a failed stat without a file, and an io_uring read.
    s.call({.pid = 100, .op = IOLENS_OP_WRITE, .start = t, .dur = 30'000, .ino = 9, .ret = 1 << 20});
    s.call({.pid = 100, .op = IOLENS_OP_STAT, .start = t + 40'000, .dur = 500, .ret = -2});
    k.posix_calls += 2;
    iolens_syscall_rec r{};
    r.op = IOLENS_OP_READ;
    r.flags = IOLENS_SC_HAS_FILE | IOLENS_SC_REGULAR | (IOLENS_PATH_IO_URING << IOLENS_SC_PATH_SHIFT);
    r.syscall_nr = 426;
    r.pid = r.tid = 200;
    r.start_ns = t + 50'000;
    r.duration_ns = 70'000;
    r.ret = 131072;
    r.requested = 131072;
    r.offset = 65536;
    r.ino = 7;
    r.dev = kDlDev;
    r.fd = 4;
    s.buf.syscall(r);
    k.async_requests++;
    iolens_block_rec b{};
    b.op = IOLENS_BLK_READ;
    b.depth = 3;
    b.dev = 8u << 20;
    b.pid = 101;
    b.bytes = 65536;
    b.issue_ns = kT0 + 3 * kMs + 2000;
    b.service_ns = 40'000;
    s.buf.block(b);
    iolens_pagecache_rec pc{};
    pc.kind = IOLENS_PC_FAULT_IN;
    pc.pid = pc.tid = 200;
    pc.dev = kDlDev;
    pc.ino = 7;
    pc.bytes = 8192;
    pc.ts_ns = kT0 + 4 * kMs;
    s.buf.pagecache(pc);
    s.exit(101, 100, t + 200'000);
    (void)(*w)->append_records(s.buf.bytes());
    if (complete) {
        nlohmann::json end = {{"duration_ns", t + kMs - kT0}};
        (void)(*w)->write_json_chunk(recording::ChunkType::End, end.dump());
    }
    (void)(*w)->close();
    return k;
}

}  // namespace iolens::test
