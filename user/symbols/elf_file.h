#pragma once
// What call-site symbolization needs from one ELF file (an executable or a
// shared library the traced job mapped): its GNU build id, the mapping from
// file offsets to virtual addresses, and the canonical frame address (CFA)
// rule at an instruction, from its .eh_frame unwind table (elfutils libdw),
// which every x86-64 binary carries even when stripped.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace iolens::symbols {

// One PT_LOAD segment: file bytes [offset, offset + filesz) are mapped at
// virtual addresses [vaddr, vaddr + filesz).
struct LoadSegment {
    uint64_t vaddr = 0;
    uint64_t offset = 0;
    uint64_t filesz = 0;
};

// How to step out of a frame, from its unwind table entry (x86-64): the
// canonical frame address is a register plus an offset, the return address
// is at CFA - 8, and the caller's rbp is saved at CFA + rbp_at (or unchanged).
struct CfaRule {
    int reg = 7;  // DWARF register: 7 rsp, 6 rbp
    int64_t offset = 0;
    enum class Rbp { Same, Saved, Unknown } rbp = Rbp::Same;
    int64_t rbp_at = 0;  // Rbp::Saved: offset from the CFA
};

class ElfFile {
public:
    // Opens path read-only; nullptr when it is not a readable ELF file.
    static std::unique_ptr<ElfFile> open(const std::string& path);
    ~ElfFile();
    ElfFile(const ElfFile&) = delete;
    ElfFile& operator=(const ElfFile&) = delete;

    // The open file (read-only), for readers that take a path: /proc/self/fd/N.
    int fd() const { return fd_; }
    // The GNU build id in lowercase hex ("" when the file has none).
    const std::string& build_id() const { return build_id_; }
    // The virtual address a file offset is loaded at (nullopt: outside every
    // loaded segment).
    std::optional<uint64_t> vaddr_of(uint64_t file_offset) const;
    // Where the return address is at an instruction: bytes from the stack
    // pointer to the CFA, when the unwind table says the CFA is the stack
    // pointer plus a constant there (the return address is then at CFA - 8).
    // nullopt: no unwind entry, or a CFA kept in another register.
    std::optional<int64_t> cfa_sp_offset(uint64_t vaddr);
    // The whole rule at an instruction (nullopt: no unwind entry, or a rule
    // that is not register + offset).
    std::optional<CfaRule> cfa_rule(uint64_t vaddr);

private:
    ElfFile() = default;
    int fd_ = -1;
    void* elf_ = nullptr;  // Elf*
    void* cfi_ = nullptr;  // Dwarf_CFI*, made on first use
    bool cfi_tried_ = false;
    std::string build_id_;
    std::vector<LoadSegment> segments_;
};

// The build id of the ELF file at path ("" when none or unreadable).
std::string read_build_id(const std::string& path);

}  // namespace iolens::symbols
