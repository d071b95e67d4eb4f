#pragma once
// Walks a byte stream of whole kernel records (iolens/abi.h, as RECORDS
// chunks hold them): each header checked, each record copied out of the
// stream (it holds them back to back at any alignment, so reading the structs
// in place would be undefined behaviour), its variable part bounds-checked,
// and the decoded record handed to a handler. The one decoder: ReportBuilder
// builds the model through it and the exporters (user/export/) read the event
// stream through it, so both see the same records and stop at the same damage.
//
// A handler has these members (templates, not virtual calls: this runs for
// every one of millions of records):
//   void on_syscall(const iolens_syscall_rec&, bool has_cache);  // has_cache:
//        the record carries the page-cache fields (see IOLENS_SC_CACHE_ZERO)
//   void on_pagecache(const iolens_pagecache_rec&);  // any size, filled in
//   void on_block(const iolens_block_rec&);
//   void on_file(const iolens_file_rec& fixed, const char* path);  // path_len bytes
//   void on_fork(const iolens_proc_rec&);
//   void on_exit(const iolens_proc_rec&);
//   void on_exec(const iolens_exec_rec& fixed, const char* args);  // args_len bytes
//   void on_marker(const iolens_marker_rec&);  // text_len bytes of text
//   void on_offcpu(const iolens_offcpu_rec&);
//   void on_unknown(uint16_t type);  // a record type from a newer kernel side
// and, if it wants user stacks (record --stacks), this one (a handler
// without it skips them):
//   void on_stack(const iolens_stack_rec& fixed, const uint64_t* data);  // nwords words, then nframes frames
#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "iolens/abi.h"
#include "model/page_cache.h"
#include "recording/record_calls.h"
#include "util/result.h"

namespace iolens::model {

template <typename T>
T load_record(const std::byte* p, size_t bytes = sizeof(T)) {
    T v;
    std::memcpy(&v, p, bytes);
    return v;
}

namespace detail {

inline std::string too_short(const char* name, uint16_t size, size_t need) {
    return fmt::format("{} record of size {} is shorter than the {} bytes it needs", name, size, need);
}

}  // namespace detail

// Decodes one record whose header has been checked (hdr.size bytes at rec)
// and hands it to its handler; false with `problem` saying what is wrong.
template <typename Handler>
bool decode_record(const iolens_rec_hdr& hdr, const std::byte* rec, Handler& h, std::string& problem) {
    using detail::too_short;
    switch (hdr.type) {
        case IOLENS_REC_SYSCALL: {
            // Two sizes exist: with the page-cache fields, and without them
            // (zeroed here). A short record either had them all zero
            // (IOLENS_SC_CACHE_ZERO) or predates them (activity unknown).
            if (hdr.size < IOLENS_SYSCALL_REC_V1_SIZE)
                return problem = too_short("syscall", hdr.size, IOLENS_SYSCALL_REC_V1_SIZE), false;
            // Each memcpy has a constant size, so it compiles to a few vector
            // moves (a variable one became `rep movs`, slow for 100 bytes).
            if (hdr.size >= sizeof(iolens_syscall_rec)) {
                h.on_syscall(load_record<iolens_syscall_rec>(rec), true);
            } else {
                iolens_syscall_rec r{};
                std::memcpy(&r, rec, IOLENS_SYSCALL_REC_V1_SIZE);
                h.on_syscall(r, r.flags & IOLENS_SC_CACHE_ZERO);
            }
            return true;
        }
        case IOLENS_REC_SYSCALL_RUN: {
            // A run (iolens/abi.h): its first call, then each further call
            // made from the one before, as the records it stands for.
            constexpr size_t head = IOLENS_SYSCALL_REC_V1_SIZE + sizeof(int64_t);
            constexpr size_t entry = sizeof(iolens_syscall_run_entry);
            if (hdr.size < head + entry || (hdr.size - head) % entry)
                return problem = fmt::format(
                           "syscall run record of size {} is not {} bytes and one or "
                           "more {}-byte entries",
                           hdr.size, head, entry),
                       false;
            iolens_syscall_rec r{};
            std::memcpy(&r, rec, IOLENS_SYSCALL_REC_V1_SIZE);
            if (!(r.flags & IOLENS_SC_CACHE_ZERO) || r.ret <= 0)
                return problem = "syscall run record without IOLENS_SC_CACHE_ZERO or bytes moved", false;
            const auto stride = load_record<uint64_t>(rec + IOLENS_SYSCALL_REC_V1_SIZE);
            r.hdr = {IOLENS_REC_SYSCALL, static_cast<uint16_t>(IOLENS_SYSCALL_REC_V1_SIZE)};
            h.on_syscall(r, true);
            for (size_t at = head; at < hdr.size; at += entry) {
                const auto e = load_record<iolens_syscall_run_entry>(rec + at);
                r.start_ns += r.duration_ns + e.gap_ns;
                r.duration_ns = e.duration_ns;
                r.offset += stride;
                h.on_syscall(r, true);
            }
            return true;
        }
        case IOLENS_REC_PAGECACHE:
            // Two sizes: one folio (before runs), or a run.
            if (hdr.size < IOLENS_PAGECACHE_REC_V1_SIZE)
                return problem = too_short("page-cache", hdr.size, IOLENS_PAGECACHE_REC_V1_SIZE), false;
            h.on_pagecache(load_pagecache(rec, hdr.size));
            return true;
        case IOLENS_REC_BLOCK:
            if (hdr.size < sizeof(iolens_block_rec))
                return problem = too_short("block", hdr.size, sizeof(iolens_block_rec)), false;
            h.on_block(load_record<iolens_block_rec>(rec));
            return true;
        case IOLENS_REC_FILE: {
            constexpr size_t fixed = offsetof(iolens_file_rec, path);
            if (hdr.size < fixed) return problem = too_short("file", hdr.size, fixed), false;
            const auto r = load_record<iolens_file_rec>(rec, fixed);
            if (r.path_len > IOLENS_PATH_BYTES || fixed + r.path_len > hdr.size)
                return problem =
                           fmt::format("file record of size {} claims a {}-byte path", hdr.size, r.path_len),
                       false;
            h.on_file(r, reinterpret_cast<const char*>(rec + fixed));
            return true;
        }
        case IOLENS_REC_FORK:
        case IOLENS_REC_EXIT:
            if (hdr.size < sizeof(iolens_proc_rec))
                return problem = too_short(hdr.type == IOLENS_REC_FORK ? "fork" : "exit", hdr.size,
                                           sizeof(iolens_proc_rec)),
                       false;
            if (hdr.type == IOLENS_REC_FORK)
                h.on_fork(load_record<iolens_proc_rec>(rec));
            else
                h.on_exit(load_record<iolens_proc_rec>(rec));
            return true;
        case IOLENS_REC_EXEC: {
            constexpr size_t fixed = offsetof(iolens_exec_rec, args);
            if (hdr.size < fixed) return problem = too_short("exec", hdr.size, fixed), false;
            const auto r = load_record<iolens_exec_rec>(rec, fixed);
            if (r.args_len > IOLENS_ARGS_BYTES || fixed + r.args_len > hdr.size)
                return problem = fmt::format("exec record of size {} claims {} bytes of arguments", hdr.size,
                                             r.args_len),
                       false;
            h.on_exec(r, reinterpret_cast<const char*>(rec + fixed));
            return true;
        }
        case IOLENS_REC_MARKER: {
            constexpr size_t fixed = offsetof(iolens_marker_rec, text);
            if (hdr.size < fixed) return problem = too_short("marker", hdr.size, fixed), false;
            auto r = load_record<iolens_marker_rec>(rec, fixed);
            if (r.text_len > IOLENS_MARKER_BYTES || fixed + r.text_len > hdr.size)
                return problem = fmt::format("marker record of size {} claims {} bytes of text", hdr.size,
                                             r.text_len),
                       false;
            std::memcpy(r.text, rec + fixed, r.text_len);
            h.on_marker(r);
            return true;
        }
        case IOLENS_REC_OFFCPU:
            if (hdr.size < sizeof(iolens_offcpu_rec))
                return problem = too_short("off-CPU", hdr.size, sizeof(iolens_offcpu_rec)), false;
            h.on_offcpu(load_record<iolens_offcpu_rec>(rec));
            return true;
        case IOLENS_REC_STACK: {
            constexpr size_t fixed = offsetof(iolens_stack_rec, data);
            if (hdr.size < fixed) return problem = too_short("stack", hdr.size, fixed), false;
            const auto r = load_record<iolens_stack_rec>(rec, fixed);
            const size_t words = size_t{r.nframes} + r.nwords;
            if (r.nframes > IOLENS_STACK_DEPTH || words > sizeof(r.data) / 8 || fixed + words * 8 > hdr.size)
                return problem = fmt::format("stack record of size {} claims {} frames and {} words",
                                             hdr.size, r.nframes, r.nwords),
                       false;
            if constexpr (requires(const uint64_t* data) { h.on_stack(r, data); }) {
                std::vector<uint64_t> data(words);
                if (words) std::memcpy(data.data(), rec + fixed, words * 8);
                h.on_stack(r, data.data());
            }
            return true;
        }
        default:  // a record type this reader does not know: skip it whole
            h.on_unknown(hdr.type);
            return true;
    }
}

// Hands every record of `records` to h, in order. Stops at the first
// malformed record with an error naming its byte offset in `records` (the
// records before it were handed over). `walked` counts the well-formed
// records (unknown types included) and goes on across calls: the message
// says how many were kept in all.
template <typename Handler>
Result<void> walk_records(std::span<const std::byte> records, Handler& h, uint64_t& walked) {
    const std::byte* base = records.data();
    const size_t total = records.size();
    size_t off = 0;
    const auto malformed = [&](const std::string& what) {
        return make_error(
            fmt::format("malformed record stream at byte offset {} of {}: {}; the {} records before it were "
                        "kept (the recording is truncated or corrupt, or was written by an incompatible "
                        "iolens)",
                        off, total, what, walked));
    };
    std::string problem;
    while (off < total) {
        const size_t left = total - off;
        if (left < sizeof(iolens_rec_hdr))
            return malformed(fmt::format("{} trailing bytes, too few for a record header", left));
        const auto hdr = load_record<iolens_rec_hdr>(base + off);
        if (hdr.size < sizeof(iolens_rec_hdr))
            return malformed(
                fmt::format("record of type {} claims size {}, smaller than its "
                            "{}-byte header",
                            hdr.type, hdr.size, sizeof(iolens_rec_hdr)));
        if (hdr.size > left)
            return malformed(
                fmt::format("record of type {} claims size {} but only {} bytes "
                            "remain",
                            hdr.type, hdr.size, left));
        if (!decode_record(hdr, base + off, h, problem)) return malformed(problem);
        walked += recording::record_calls(hdr);
        off += hdr.size;
    }
    return {};
}

}  // namespace iolens::model
