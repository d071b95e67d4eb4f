#pragma once
// From a stack record (iolens/abi.h: struct iolens_stack_rec) to frames of
// (file, offset), and from those to function names.
//
// Symbolizer names a file offset in a module: from what the recording says
// (its SYMBOLS chunk, written by the recorder while the files were at hand),
// else from the file on this machine when its build id is the recorded one.
// StackResolver maps a process's user addresses to (module, offset) with the
// process's executable mappings (STACKS chunks: /proc/PID/maps read by the
// recorder), a forked child without maps of its own using its parent's, and
// puts back the caller of the syscall wrapper, which the kernel's
// frame-pointer walk skips (docs/call-sites.md).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "iolens/abi.h"
#include "symbols/bcc_symbols.h"
#include "symbols/elf_file.h"
#include "symbols/proc_maps.h"

namespace iolens::symbols {

inline constexpr uint32_t kNoModule = ~0u;

struct Module {
    std::string path;  // as the traced process mapped it, or "[vdso]"
    std::string build_id;
};

// One frame: an offset in a module's file, or a bare address (module
// kNoModule: no mapping known). A return address is stored minus one, so it
// names the call instruction's function.
struct Frame {
    uint32_t module = kNoModule;
    uint64_t offset = 0;
    bool operator==(const Frame&) const = default;
};

class Symbolizer {
public:
    // May open the modules' files on this machine (false: recorded answers only).
    explicit Symbolizer(bool local_files = true);
    ~Symbolizer();

    uint32_t module(const std::string& path, const std::string& build_id);
    const Module& module_at(uint32_t id) const { return modules_[id]; }
    size_t modules() const { return modules_.size(); }

    void add_recorded_function(uint32_t module, uint64_t offset, std::string name);
    void add_recorded_cfa(uint32_t module, uint64_t offset, int64_t cfa);
    void add_recorded_note(uint32_t module, std::string note);

    // The function at a file offset; nullopt when unknown (module_note says why).
    std::optional<std::string> function(uint32_t module, uint64_t offset);
    // Bytes from the stack pointer to the CFA at a file offset (ElfFile::cfa_sp_offset).
    std::optional<int64_t> cfa(uint32_t module, uint64_t offset);
    // The unwind rule at a file offset, from the file on this machine (cached).
    std::optional<CfaRule> cfa_rule(uint32_t module, uint64_t offset);
    // Why a module's functions are not named ("" when they are, or not asked).
    std::string module_note(uint32_t module) const;

private:
    struct Local;
    Local* local(uint32_t module);
    bool local_files_;
    std::vector<Module> modules_;
    std::map<std::pair<std::string, std::string>, uint32_t> ids_;
    std::unordered_map<uint64_t, std::string> recorded_fn_;  // (module << 40 | offset) ->
    std::unordered_map<uint64_t, int64_t> recorded_cfa_;
    std::map<uint32_t, std::string> recorded_note_;
    std::map<uint32_t, std::unique_ptr<Local>> local_;
    std::unordered_map<uint64_t, std::optional<CfaRule>> rules_;
};

class StackResolver {
public:
    explicit StackResolver(Symbolizer& symbolizer) : sym_(symbolizer) {}

    // A process's executable mappings as read at one time (a later set adds
    // to, and where they overlap overrides, the earlier ones).
    void add_maps(uint32_t pid, const std::vector<Mapping>& maps);
    void add_parent(uint32_t pid, uint32_t ppid);
    // The process exec'd: its earlier mappings (and its parent's) no longer apply.
    void forget(uint32_t pid);
    bool has_maps(uint32_t pid) const { return maps_.count(pid) != 0; }
    // True when addr is in a known executable mapping of pid (or of the
    // ancestor whose mappings it inherited).
    bool covers(uint32_t pid, uint64_t addr) const;

    // The stack's frames, innermost first (data: the record's words, then its
    // frames). Frames past the first address in no known mapping are dropped
    // (a frame-pointer walk through code built without frame pointers reads
    // garbage there); the innermost is kept as a bare address if not known.
    std::vector<Frame> resolve(const iolens_stack_rec& rec, const uint64_t* data);
    // The recorder's unwinding of a record as the kernel sent it: return
    // addresses, innermost first (the first the syscall's own address): by
    // the .eh_frame rules over the copied stack words, or the frame-pointer
    // walk with the wrapper's caller put back, whichever goes deeper.
    std::vector<uint64_t> unwind(const iolens_stack_rec& rec, const uint64_t* data);
    // The last unwind()'s .eh_frame walk stopped at an address in no known
    // mapping (a library mapped since the mappings were read, or a JIT).
    bool stopped_at_unknown() const { return stopped_at_unknown_; }
    // The module and offset of an address, if pid's mappings cover it.
    std::optional<Frame> locate(uint32_t pid, uint64_t addr) const;

    // Frames of return addresses (the first the syscall's own), as resolve().
    std::vector<Frame> frames_of(uint32_t pid, const std::vector<uint64_t>& addrs) const;

private:
    std::vector<uint64_t> dwarf_unwind(const iolens_stack_rec& rec, const uint64_t* words);
    std::vector<uint64_t> fp_unwind(const iolens_stack_rec& rec, const uint64_t* words, const uint64_t* ips);
    struct Entry {
        uint64_t start, end, pgoff;
        uint32_t module;
    };
    Symbolizer& sym_;
    // By start; a newer mapping replaces what it overlaps. At most
    // kMaxMappings a process (a recording cannot make this unbounded).
    static constexpr size_t kMaxMappings = 65536;
    std::unordered_map<uint32_t, std::map<uint64_t, Entry>> maps_;
    std::unordered_map<uint32_t, uint32_t> parent_;
    bool stopped_at_unknown_ = false;
};

}  // namespace iolens::symbols
