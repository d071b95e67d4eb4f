#include "recording/record_buffer.h"

#include <algorithm>
#include <cstring>
#include <memory>

namespace iolens::recording {

namespace {

template <size_t N>
void copy_comm(char (&dst)[N], std::string_view comm) {
    std::memset(dst, 0, N);
    std::memcpy(dst, comm.data(), std::min(N, comm.size()));  // a full-length comm has no NUL
}

}  // namespace

std::string path_components(std::string_view path) {
    std::vector<std::string_view> parts;
    size_t b = 0;
    while (b < path.size()) {
        size_t e = path.find('/', b);
        if (e == std::string_view::npos) e = path.size();
        if (e > b) parts.push_back(path.substr(b, e - b));
        b = e + 1;
    }
    std::string out;
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
        out += *it;
        out += '\0';
    }
    return out;
}

RecordBuffer& RecordBuffer::raw(const void* p, size_t n) {
    const auto* b = static_cast<const std::byte*>(p);
    bytes_.insert(bytes_.end(), b, b + n);
    boundaries_.push_back(bytes_.size());
    return *this;
}

void RecordBuffer::clear() {
    bytes_.clear();
    boundaries_.clear();
}

RecordBuffer& RecordBuffer::syscall(iolens_syscall_rec r, bool short_form) {
    const uint16_t size = short_form ? IOLENS_SYSCALL_REC_V1_SIZE : sizeof r;
    r.hdr = {IOLENS_REC_SYSCALL, size};
    return raw(&r, size);
}

namespace {

// b continues a (iolens/abi.h, IOLENS_REC_SYSCALL_RUN), at any stride.
bool continues(const iolens_syscall_rec& a, const iolens_syscall_rec& b) {
    const uint64_t a_end = a.start_ns + a.duration_ns;
    return b.syscall_nr == a.syscall_nr && b.op == a.op && b.flags == a.flags && b.pid == a.pid &&
           b.tid == a.tid && b.fd == a.fd && b.dev == a.dev && b.ino == a.ino && b.ret == a.ret &&
           b.requested == a.requested && b.start_ns >= a_end && b.start_ns - a_end <= UINT32_MAX &&
           b.duration_ns <= UINT32_MAX;
}

bool may_start_run(const iolens_syscall_rec& r) {
    return (r.op == IOLENS_OP_READ || r.op == IOLENS_OP_WRITE) && r.ret > 0 && r.offset != IOLENS_NO_OFFSET &&
           (r.flags & IOLENS_SC_CACHE_ZERO);
}

}  // namespace

RecordBuffer& RecordBuffer::syscall_runs(std::span<const iolens_syscall_rec> calls) {
    constexpr size_t head = IOLENS_SYSCALL_REC_V1_SIZE;
    for (size_t i = 0; i < calls.size();) {
        size_t j = i + 1;
        uint64_t stride = 0;
        if (may_start_run(calls[i]) && j < calls.size() && continues(calls[i], calls[j])) {
            stride = calls[j].offset - calls[i].offset;
            for (++j; j < calls.size() && continues(calls[j - 1], calls[j]) &&
                      calls[j].offset - calls[j - 1].offset == stride;
                 ++j) {
            }
        }
        // At most as many entries as fit a record's 16-bit size.
        j = std::min(j, i + 1 + (UINT16_MAX - head - 8) / sizeof(iolens_syscall_run_entry));
        if (j == i + 1) {
            syscall(calls[i], true);
            i = j;
            continue;
        }
        iolens_syscall_rec r = calls[i];
        const size_t size = head + 8 + (j - i - 1) * sizeof(iolens_syscall_run_entry);
        r.hdr = {IOLENS_REC_SYSCALL_RUN, static_cast<uint16_t>(size)};
        std::vector<std::byte> rec(size);
        std::memcpy(rec.data(), &r, head);
        std::memcpy(rec.data() + head, &stride, 8);
        for (size_t k = i + 1; k < j; ++k) {
            const iolens_syscall_run_entry e{
                static_cast<uint32_t>(calls[k].start_ns - (calls[k - 1].start_ns + calls[k - 1].duration_ns)),
                static_cast<uint32_t>(calls[k].duration_ns)};
            std::memcpy(rec.data() + head + 8 + (k - i - 1) * sizeof e, &e, sizeof e);
        }
        raw(rec.data(), rec.size());
        i = j;
    }
    return *this;
}

RecordBuffer& RecordBuffer::pagecache(iolens_pagecache_rec r) {
    r.hdr = {IOLENS_REC_PAGECACHE, sizeof r};
    return raw(&r, sizeof r);
}

RecordBuffer& RecordBuffer::block(iolens_block_rec r) {
    r.hdr = {IOLENS_REC_BLOCK, sizeof r};
    return raw(&r, sizeof r);
}

RecordBuffer& RecordBuffer::offcpu(iolens_offcpu_rec r) {
    r.hdr = {IOLENS_REC_OFFCPU, sizeof r};
    return raw(&r, sizeof r);
}

RecordBuffer& RecordBuffer::proc(uint16_t type, uint32_t pid, uint32_t ppid, uint64_t ts_ns,
                                 std::string_view comm, int32_t exit_code) {
    iolens_proc_rec r{};
    r.hdr = {type, sizeof r};
    r.pid = pid;
    r.ppid = ppid;
    r.ts_ns = ts_ns;
    r.exit_code = exit_code;
    copy_comm(r.comm, comm);
    return raw(&r, sizeof r);
}

RecordBuffer& RecordBuffer::file(iolens_file_rec r, std::string_view components) {
    const size_t n = std::min<size_t>(components.size(), IOLENS_PATH_BYTES);
    r.path_len = static_cast<uint16_t>(n);
    r.hdr = {IOLENS_REC_FILE, static_cast<uint16_t>(offsetof(iolens_file_rec, path) + n)};
    std::memcpy(r.path, components.data(), n);
    return raw(&r, r.hdr.size);
}

RecordBuffer& RecordBuffer::exec(uint32_t pid, uint32_t ppid, uint64_t ts_ns, std::string_view comm,
                                 std::string_view args) {
    iolens_exec_rec r{};
    const size_t n = std::min<size_t>(args.size(), IOLENS_ARGS_BYTES);
    r.args_len = static_cast<uint16_t>(n);
    r.hdr = {IOLENS_REC_EXEC, static_cast<uint16_t>(offsetof(iolens_exec_rec, args) + n)};
    r.pid = pid;
    r.ppid = ppid;
    r.ts_ns = ts_ns;
    copy_comm(r.comm, comm);
    std::memcpy(r.args, args.data(), n);
    return raw(&r, r.hdr.size);
}

RecordBuffer& RecordBuffer::marker(uint32_t pid, uint32_t tid, uint64_t ts_ns, std::string_view text) {
    iolens_marker_rec r{};
    const size_t n = std::min<size_t>(text.size(), IOLENS_MARKER_BYTES);
    r.text_len = static_cast<uint16_t>(n);
    r.hdr = {IOLENS_REC_MARKER, static_cast<uint16_t>(offsetof(iolens_marker_rec, text) + n)};
    r.pid = pid;
    r.tid = tid;
    r.ts_ns = ts_ns;
    std::memcpy(r.text, text.data(), n);
    return raw(&r, r.hdr.size);
}

RecordBuffer& RecordBuffer::stack(const iolens_stack_rec& fixed, std::span<const uint64_t> data) {
    auto r = std::make_unique<iolens_stack_rec>(fixed);  // 8.8 KiB: not on the stack
    const size_t words = std::min<size_t>(r->nwords, std::min(data.size(), sizeof(r->data) / 8));
    const size_t frames =
        std::min<size_t>({data.size() - words, size_t{IOLENS_STACK_DEPTH}, sizeof(r->data) / 8 - words});
    r->nwords = static_cast<uint16_t>(words);
    r->nframes = static_cast<uint16_t>(frames);
    r->hdr = {IOLENS_REC_STACK,
              static_cast<uint16_t>(offsetof(iolens_stack_rec, data) + (words + frames) * 8)};
    std::memcpy(r->data, data.data(), (words + frames) * 8);
    return raw(r.get(), r->hdr.size);
}

}  // namespace iolens::recording
