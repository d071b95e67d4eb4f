#pragma once
// Builds model::CallSites (model/call_sites.h) from a recording's chunks: the
// stack records and the calls they go with (RECORDS), the mappings and
// unwind rules (STACKS) and the function names (SYMBOLS) the recorder wrote.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "iolens/abi.h"
#include "model/call_sites.h"
#include "recording/recording.h"
#include "symbols/proc_maps.h"
#include "symbols/stack_resolver.h"

namespace iolens::model {

// The STACKS chunk (while recording): a process's executable mappings, and
// the unwind rule at new syscall-wrapper addresses.
struct CfaEntry {
    std::string path, build_id;
    uint64_t offset = 0;
    int64_t cfa = 0;
};
nlohmann::json stacks_chunk_json(uint32_t pid, const std::vector<symbols::Mapping>& maps,
                                 const std::vector<CfaEntry>& cfa);
// The SYMBOLS chunk (when recording stops): the function at each frame's offset.
struct ModuleSymbols {
    std::string path, build_id;
    std::string note;  // why its functions are not named ("" when they are)
    std::vector<std::pair<uint64_t, std::string>> functions;
};
nlohmann::json symbols_chunk_json(const std::vector<ModuleSymbols>& modules);

class CallSiteBuilder {
public:
    // local_files: name functions from the files on this machine when the
    // recording does not (matching build ids only).
    explicit CallSiteBuilder(bool local_files = true);
    void on_chunk(const recording::Chunk& chunk);
    // nullopt when the recording was made without --stacks.
    std::optional<CallSites> finish();

    // A second walk of the records after finish() (iolens export): restart(),
    // then hand it the stack records (on_stack) and ask charge() for each
    // call: its call site's innermost frames, "read_a (app) < main (app)",
    // or null (no stack).
    void restart();
    const std::string* charge(const iolens_syscall_rec& r);

    // walk_records handler.
    void on_stack(const iolens_stack_rec& r, const uint64_t* data);  // words, then frames
    void on_syscall(const iolens_syscall_rec& r, bool has_cache);
    void on_file(const iolens_file_rec& r, const char* path);
    void on_fork(const iolens_proc_rec& r);
    void on_exec(const iolens_exec_rec& r, const char* args);
    void on_pagecache(const iolens_pagecache_rec&) {}
    void on_block(const iolens_block_rec&) {}
    void on_exit(const iolens_proc_rec&) {}
    void on_marker(const iolens_marker_rec&) {}
    void on_offcpu(const iolens_offcpu_rec&) {}
    void on_unknown(uint16_t) {}

private:
    struct Acc;
    uint32_t intern(std::vector<symbols::Frame> frames);

    bool active_ = false;
    std::string spec_;
    uint64_t walked_ = 0;
    symbols::Symbolizer sym_;
    symbols::StackResolver resolver_;
    struct Pending {
        uint64_t start_ns = 0;
        uint32_t stack = 0;
        bool valid = false;
    };
    std::unordered_map<uint32_t, Pending> pending_;  // by tid
    struct TidFile {
        uint32_t tid, dev;
        uint64_t ino;
        uint32_t op;  // enum iolens_op, or kAnyOp
        bool operator==(const TidFile&) const = default;
    };
    struct TidFileHash {
        size_t operator()(const TidFile& k) const {
            return std::hash<uint64_t>()((k.ino + k.op) * 0x9e3779b97f4a7c15ull ^
                                         (uint64_t{k.tid} << 32 | k.dev));
        }
    };
    // The last stack of each (thread, file, class), and of each (thread, file).
    std::unordered_map<TidFile, uint32_t, TidFileHash> last_;
    std::map<std::vector<std::pair<uint32_t, uint64_t>>, uint32_t> ids_;
    std::vector<std::vector<symbols::Frame>> stacks_;
    std::vector<CallSite> acc_;  // by stack id
    struct FileAcc {
        uint64_t bytes = 0, calls = 0;
    };
    std::map<std::pair<uint32_t, std::pair<uint32_t, uint64_t>>, FileAcc> files_;  // (stack, (dev, ino))
    std::map<std::pair<uint32_t, uint64_t>, std::string> names_;                   // (dev, ino) -> path
    uint64_t stack_records_ = 0, calls_ = 0, calls_without_ = 0;
    std::vector<std::string> labels_;  // by stack id, made by finish()
    std::vector<uint32_t> order_;      // stack id of each stack record, in file order
    bool replay_ = false;              // restart() was called: on_stack takes ids from order_
    size_t cursor_ = 0;
};

}  // namespace iolens::model
