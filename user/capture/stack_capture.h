#pragma once
// The recorder's part of `record --stacks` (docs/call-sites.md): while the
// job runs, the mappings of each process whose stacks arrive, read from /proc
// before it can exit, and the unwind rule at each new syscall-wrapper
// address (STACKS chunks, written before the stack records that need them);
// when recording stops, the function names of every frame seen (a SYMBOLS
// chunk), read from the files while they are at hand, so a report on another
// machine, or after the job's processes are gone, still names them.
#include <cstdint>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>
#include <cstddef>

#include "iolens/abi.h"
#include "recording/recording.h"
#include "symbols/stack_resolver.h"
#include "util/result.h"

namespace iolens::capture {

class StackCapture {
public:
    // ra_map_fd: the syscall family's iolens_stack_ra map (-1: none), told
    // where each wrapper keeps its return address.
    StackCapture(recording::Writer& writer, int ra_map_fd)
        : writer_(writer), ra_map_fd_(ra_map_fd), resolver_(sym_) {}

    // A stack record as the kernel sent it (data: its words, then its
    // frames). Returns the record to write in its place: unwound by the
    // .eh_frame rules, without the stack words (IOLENS_STACKF_UNWOUND).
    std::vector<std::byte> on_stack(const iolens_stack_rec& rec, const uint64_t* data, uint64_t now_ns);
    void on_fork(uint32_t pid, uint32_t ppid) { resolver_.add_parent(pid, ppid); }
    // The process mapped a file: its mappings are worth reading again.
    void on_mmap(uint32_t pid) { mapped_since_read_.insert(pid); }
    void on_exec(uint32_t pid) {
        resolver_.forget(pid);
        read_at_.erase(pid);
        last_maps_.erase(pid);
        mapped_since_read_.insert(pid);
    }
    // The SYMBOLS chunk.
    Result<void> finish();
    const std::string& error() const { return error_; }

private:
    void read_maps(uint32_t pid, uint64_t now_ns, std::vector<symbols::Mapping>& changed);
    recording::Writer& writer_;
    int ra_map_fd_;
    symbols::Symbolizer sym_;
    symbols::StackResolver resolver_;
    std::unordered_map<uint32_t, uint64_t> read_at_;  // pid -> when its maps were last read
    std::set<uint32_t> mapped_since_read_;            // pids that mmap'd a file since
    std::unordered_map<uint32_t, std::vector<symbols::Mapping>> last_maps_;  // as last read, by pid
    std::unordered_map<std::string, std::string> build_ids_;                 // by path
    std::set<std::pair<uint32_t, uint64_t>> cfa_written_;                    // (module, offset)
    std::set<std::pair<uint32_t, uint64_t>> frames_;                         // every frame seen
    std::set<std::pair<uint32_t, uint64_t>> ra_written_;  // (pid, wrapper address) told to the kernel
    std::string error_;
};

}  // namespace iolens::capture
