#pragma once
// Synthetic record streams for the ranks / epochs / stalls tests: timed
// syscalls, forks and exits, file names, markers and off-CPU intervals.
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "iolens/abi.h"
#include "model/report_builder.h"
#include "recording/record_buffer.h"

namespace iolens::test {

inline constexpr uint32_t kDlDev = (8u << 20) | 1;
inline constexpr uint64_t kMs = 1'000'000;

class DlStream {
public:
    struct Call {
        uint32_t pid = 100;
        uint32_t tid = 0;  // 0: the main thread (== pid)
        int op = IOLENS_OP_READ;
        uint64_t start = 0;
        uint64_t dur = 1000;
        uint64_t ino = 0;  // 0: no file
        int64_t ret = 4096;
        uint64_t offset = 0;
        uint64_t cache_in = 0;
    };
    DlStream& call(const Call& c) {
        iolens_syscall_rec r{};
        r.op = static_cast<uint8_t>(c.op);
        r.flags = c.ino ? (IOLENS_SC_HAS_FILE | IOLENS_SC_REGULAR) : 0;
        r.pid = c.pid;
        r.tid = c.tid ? c.tid : c.pid;
        r.start_ns = c.start;
        r.duration_ns = c.dur;
        r.ret = c.ret;
        r.requested = c.ret > 0 ? static_cast<uint64_t>(c.ret) : 0;
        r.offset = c.op == IOLENS_OP_READ ? c.offset : IOLENS_NO_OFFSET;
        r.ino = c.ino;
        r.dev = c.ino ? kDlDev : 0;
        r.fd = c.ino ? 3 : -1;
        r.cache_in_bytes = c.cache_in;
        buf.syscall(r);
        return *this;
    }
    // open + one whole read of a file at offset 0, as a DataLoader worker does.
    DlStream& load(uint32_t pid, uint64_t ino, uint64_t t, int64_t bytes = 4096) {
        call({.pid = pid, .op = IOLENS_OP_OPEN, .start = t, .dur = 100, .ino = ino, .ret = 3});
        return call({.pid = pid, .start = t + 200, .dur = 1000, .ino = ino, .ret = bytes});
    }
    DlStream& file(uint64_t ino, const std::string& path) {
        iolens_file_rec r{};
        r.pid = 100;
        r.dev = kDlDev;
        r.mode = 0100644;
        r.ino = ino;
        buf.file(r, recording::path_components(path));
        return *this;
    }
    DlStream& proc(uint16_t type, uint32_t pid, uint32_t ppid, uint64_t ts) {
        buf.proc(type, pid, ppid, ts, "python");
        return *this;
    }
    DlStream& fork(uint32_t pid, uint32_t ppid, uint64_t ts) { return proc(IOLENS_REC_FORK, pid, ppid, ts); }
    DlStream& exit(uint32_t pid, uint32_t ppid, uint64_t ts) { return proc(IOLENS_REC_EXIT, pid, ppid, ts); }
    DlStream& marker(uint32_t pid, uint64_t ts, const std::string& text) {
        buf.marker(pid, pid, ts, text);
        return *this;
    }
    DlStream& offcpu(uint32_t pid, uint64_t start, uint64_t end) {
        iolens_offcpu_rec r{};
        r.pid = r.tid = pid;
        r.state = 2;
        r.start_ns = start;
        r.end_ns = end;
        buf.offcpu(r);
        return *this;
    }
    DlStream& pagecache_fault(uint32_t pid, uint64_t ino, uint64_t ts, uint64_t bytes) {
        iolens_pagecache_rec r{};
        r.kind = IOLENS_PC_FAULT_IN;
        r.pid = r.tid = pid;
        r.dev = kDlDev;
        r.ino = ino;
        r.bytes = bytes;
        r.ts_ns = ts;
        buf.pagecache(r);
        return *this;
    }
    DlStream& block(uint32_t pid, uint64_t issue, uint32_t bytes) {
        iolens_block_rec r{};
        r.op = IOLENS_BLK_READ;
        r.dev = kDlDev;
        r.pid = pid;
        r.bytes = bytes;
        r.issue_ns = issue;
        r.service_ns = 1000;
        buf.block(r);
        return *this;
    }
    DlStream& raw(const void* p, size_t n) {
        buf.raw(p, n);
        return *this;
    }
    std::span<const std::byte> bytes() const { return buf.bytes(); }
    recording::RecordBuffer buf;
};

// A capture from 0 to end_ns with the given probe families attached.
inline recording::CaptureInfo dl_capture(uint64_t end_ns, std::vector<std::string> probes = {}) {
    recording::CaptureInfo c;
    c.start_mono_ns = 1;  // 0 would mean "unknown"
    c.duration_ns = end_ns - 1;
    for (auto& p : probes) c.probes.push_back({p, "", true, ""});
    return c;
}

inline model::Report build(const DlStream& s, const recording::CaptureInfo& cap,
                           const std::map<uint32_t, std::map<std::string, std::string>>& env = {},
                           model::BuilderOptions opt = {}) {
    model::ReportBuilder b(opt);
    b.set_capture(cap);
    for (const auto& [pid, vars] : env) b.add_process_env(pid, vars);
    auto r = b.add_records(s.bytes());
    if (!r) throw std::runtime_error(r.error().message);
    return b.finish();
}

}  // namespace iolens::test
