#pragma once
// Synthetic record streams for the ranks / epochs / stalls tests: timed
// syscalls, forks and exits, file names, markers and off-CPU intervals.
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "iolens/abi.h"
#include "model/report_builder.h"

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
        r.hdr = {IOLENS_REC_SYSCALL, sizeof r};
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
        return raw(&r, sizeof r);
    }
    // open + one whole read of a file at offset 0, as a DataLoader worker does.
    DlStream& load(uint32_t pid, uint64_t ino, uint64_t t, int64_t bytes = 4096) {
        call({.pid = pid, .op = IOLENS_OP_OPEN, .start = t, .dur = 100, .ino = ino, .ret = 3});
        return call({.pid = pid, .start = t + 200, .dur = 1000, .ino = ino, .ret = bytes});
    }
    DlStream& file(uint64_t ino, const std::string& path) {
        // leaf first, NUL-separated components
        std::vector<std::string> parts;
        size_t b = 0;
        while (b < path.size()) {
            size_t e = path.find('/', b);
            if (e == std::string::npos) e = path.size();
            if (e > b) parts.push_back(path.substr(b, e - b));
            b = e + 1;
        }
        std::string comp;
        for (auto it = parts.rbegin(); it != parts.rend(); ++it) comp += *it + '\0';
        iolens_file_rec r{};
        r.path_len = static_cast<uint16_t>(comp.size());
        r.hdr = {IOLENS_REC_FILE, static_cast<uint16_t>(offsetof(iolens_file_rec, path) + comp.size())};
        r.pid = 100;
        r.dev = kDlDev;
        r.mode = 0100644;
        r.ino = ino;
        std::memcpy(r.path, comp.data(), comp.size());
        return raw(&r, r.hdr.size);
    }
    DlStream& proc(uint16_t type, uint32_t pid, uint32_t ppid, uint64_t ts) {
        iolens_proc_rec r{};
        r.hdr = {type, sizeof r};
        r.pid = pid;
        r.ppid = ppid;
        r.ts_ns = ts;
        std::memcpy(r.comm, "python", 6);
        return raw(&r, sizeof r);
    }
    DlStream& fork(uint32_t pid, uint32_t ppid, uint64_t ts) {
        return proc(IOLENS_REC_FORK, pid, ppid, ts);
    }
    DlStream& exit(uint32_t pid, uint32_t ppid, uint64_t ts) {
        return proc(IOLENS_REC_EXIT, pid, ppid, ts);
    }
    DlStream& marker(uint32_t pid, uint64_t ts, const std::string& text) {
        iolens_marker_rec r{};
        r.text_len = static_cast<uint16_t>(text.size());
        r.hdr = {IOLENS_REC_MARKER,
                 static_cast<uint16_t>(offsetof(iolens_marker_rec, text) + text.size())};
        r.pid = r.tid = pid;
        r.ts_ns = ts;
        std::memcpy(r.text, text.data(), text.size());
        return raw(&r, r.hdr.size);
    }
    DlStream& offcpu(uint32_t pid, uint64_t start, uint64_t end) {
        iolens_offcpu_rec r{};
        r.hdr = {IOLENS_REC_OFFCPU, sizeof r};
        r.pid = r.tid = pid;
        r.state = 2;
        r.start_ns = start;
        r.end_ns = end;
        return raw(&r, sizeof r);
    }
    DlStream& pagecache_fault(uint32_t pid, uint64_t ino, uint64_t ts, uint64_t bytes) {
        iolens_pagecache_rec r{};
        r.hdr = {IOLENS_REC_PAGECACHE, sizeof r};
        r.kind = IOLENS_PC_FAULT_IN;
        r.pid = r.tid = pid;
        r.dev = kDlDev;
        r.ino = ino;
        r.bytes = bytes;
        r.ts_ns = ts;
        return raw(&r, sizeof r);
    }
    DlStream& block(uint32_t pid, uint64_t issue, uint32_t bytes) {
        iolens_block_rec r{};
        r.hdr = {IOLENS_REC_BLOCK, sizeof r};
        r.op = IOLENS_BLK_READ;
        r.dev = kDlDev;
        r.pid = pid;
        r.bytes = bytes;
        r.issue_ns = issue;
        r.service_ns = 1000;
        return raw(&r, sizeof r);
    }
    DlStream& raw(const void* p, size_t n) {
        const auto* b = static_cast<const std::byte*>(p);
        bytes.insert(bytes.end(), b, b + n);
        return *this;
    }
    std::vector<std::byte> bytes;
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
    auto r = b.add_records(s.bytes);
    if (!r) throw std::runtime_error(r.error().message);
    return b.finish();
}

}  // namespace iolens::test
