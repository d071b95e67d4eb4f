#pragma once
// Kernel records (iolens/abi.h) encoded in user space, back to back, exactly
// as the ring buffer delivers them: for the tests' synthetic streams and for
// tools that write recordings (tools/synth-recording). Each append sets the
// record's header (type and size); variable-length records carry only the
// bytes they use.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "iolens/abi.h"

namespace iolens::recording {

// "/data/train/a.bin" -> "a.bin\0train\0data\0": the components leaf first,
// each followed by a NUL, as the kernel's path walk emits them.
std::string path_components(std::string_view absolute_path);

class RecordBuffer {
public:
    // A syscall record; short: the 72-byte form without the page-cache fields.
    RecordBuffer& syscall(iolens_syscall_rec r, bool short_form = false);
    // One thread's calls in order, as the kernel side's batches send them
    // (bpf/call_batch.bpf.h): short records, each call that continues the
    // one before -- the same syscall, flags, pid, tid, fd, file, ret > 0 and
    // requested, at a fixed stride of offset, gap and duration under 2^32
    // ns -- folded into a run (IOLENS_REC_SYSCALL_RUN). Calls must be
    // short-form (IOLENS_SC_CACHE_ZERO set); the reader gives back exactly
    // the records syscall(r, true) would have written.
    RecordBuffer& syscall_runs(std::span<const iolens_syscall_rec> calls);
    RecordBuffer& pagecache(iolens_pagecache_rec r);
    RecordBuffer& block(iolens_block_rec r);
    RecordBuffer& offcpu(iolens_offcpu_rec r);
    // fork or exit (type), comm cut to fit.
    RecordBuffer& proc(uint16_t type, uint32_t pid, uint32_t ppid, uint64_t ts_ns, std::string_view comm,
                       int32_t exit_code = 0);
    // A file record: r's fixed fields, and the path in kernel form
    // (path_components) cut to IOLENS_PATH_BYTES.
    RecordBuffer& file(iolens_file_rec fixed, std::string_view components);
    // args: NUL-separated argv.
    RecordBuffer& exec(uint32_t pid, uint32_t ppid, uint64_t ts_ns, std::string_view comm,
                       std::string_view args);
    // text: what follows IOLENS_MARKER_PREFIX ("epoch/3").
    RecordBuffer& marker(uint32_t pid, uint32_t tid, uint64_t ts_ns, std::string_view text);
    // A stack record (record --stacks): r's fixed fields, and data: its
    // r.nwords words then its frames (r.nframes is set from what follows).
    RecordBuffer& stack(const iolens_stack_rec& r, std::span<const uint64_t> data);
    // Any bytes, as they are (a malformed or unknown record).
    RecordBuffer& raw(const void* p, size_t n);

    std::span<const std::byte> bytes() const { return bytes_; }
    // The bytes, writable: tests damage records on purpose.
    std::vector<std::byte>& data() { return bytes_; }
    size_t size() const { return bytes_.size(); }
    bool empty() const { return bytes_.empty(); }
    void clear();
    // The end offset of each record appended, in order.
    const std::vector<size_t>& boundaries() const { return boundaries_; }

private:
    std::vector<std::byte> bytes_;
    std::vector<size_t> boundaries_;
};

}  // namespace iolens::recording
