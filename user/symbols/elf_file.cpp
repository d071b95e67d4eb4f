#include "symbols/elf_file.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cstdlib>

namespace iolens::symbols {

namespace {

constexpr unsigned kDwarfRegSp = 7;  // x86-64 DWARF register number of %rsp

std::string hex(const void* p, size_t n) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(2 * n);
    const auto* b = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) {
        out.push_back(digits[b[i] >> 4]);
        out.push_back(digits[b[i] & 15]);
    }
    return out;
}

}  // namespace

std::unique_ptr<ElfFile> ElfFile::open(const std::string& path) {
    if (elf_version(EV_CURRENT) == EV_NONE) return nullptr;
    // A recording names these paths: only a regular file is opened (a FIFO
    // or a device named by a damaged or hostile recording could block or
    // never end), without blocking.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) return nullptr;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return nullptr;
    }
    Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
    if (!elf || elf_kind(elf) != ELF_K_ELF) {
        if (elf) elf_end(elf);
        ::close(fd);
        return nullptr;
    }
    std::unique_ptr<ElfFile> f(new ElfFile());
    f->fd_ = fd;
    f->elf_ = elf;
    const void* id = nullptr;
    const ssize_t n = dwelf_elf_gnu_build_id(elf, &id);
    if (n > 0 && id) f->build_id_ = hex(id, static_cast<size_t>(n));
    size_t phnum = 0;
    if (elf_getphdrnum(elf, &phnum) == 0)
        for (size_t i = 0; i < phnum; ++i) {
            GElf_Phdr ph;
            if (gelf_getphdr(elf, static_cast<int>(i), &ph) && ph.p_type == PT_LOAD)
                f->segments_.push_back({ph.p_vaddr, ph.p_offset, ph.p_filesz});
        }
    return f;
}

ElfFile::~ElfFile() {
    if (cfi_) dwarf_cfi_end(static_cast<Dwarf_CFI*>(cfi_));
    if (elf_) elf_end(static_cast<Elf*>(elf_));
    if (fd_ >= 0) ::close(fd_);
}

std::optional<uint64_t> ElfFile::vaddr_of(uint64_t file_offset) const {
    for (const auto& s : segments_)
        if (file_offset >= s.offset && file_offset - s.offset < s.filesz)
            return s.vaddr + (file_offset - s.offset);
    return std::nullopt;
}

std::optional<int64_t> ElfFile::cfa_sp_offset(uint64_t vaddr) {
    const auto r = cfa_rule(vaddr);
    if (!r || r->reg != static_cast<int>(kDwarfRegSp)) return std::nullopt;
    return r->offset;
}

std::optional<CfaRule> ElfFile::cfa_rule(uint64_t vaddr) {
    if (!cfi_tried_) {
        cfi_tried_ = true;
        cfi_ = dwarf_getcfi_elf(static_cast<Elf*>(elf_));
    }
    if (!cfi_) return std::nullopt;
    Dwarf_Frame* frame = nullptr;
    if (dwarf_cfi_addrframe(static_cast<Dwarf_CFI*>(cfi_), vaddr, &frame) != 0 || !frame) return std::nullopt;
    Dwarf_Op* ops = nullptr;
    size_t nops = 0;
    std::optional<CfaRule> out;
    if (dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops == 1) {
        CfaRule r;
        bool ok = true;
        if (ops[0].atom == DW_OP_bregx) {
            r.reg = static_cast<int>(ops[0].number);
            r.offset = static_cast<int64_t>(ops[0].number2);
        } else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
            r.reg = ops[0].atom - DW_OP_breg0;
            r.offset = static_cast<int64_t>(ops[0].number);
        } else {
            ok = false;
        }
        if (ok && (r.reg == 6 || r.reg == 7)) out = r;
    }
    if (out) {
        // rbp: same value, saved at CFA + N, or something this unwinder
        // does not follow.
        Dwarf_Op mem[3];
        Dwarf_Op* rops = nullptr;
        size_t rn = 0;
        if (dwarf_frame_register(frame, 6, mem, &rops, &rn) != 0) {
            out->rbp = CfaRule::Rbp::Unknown;
        } else if (rn == 0) {
            out->rbp = rops ? CfaRule::Rbp::Unknown : CfaRule::Rbp::Same;
        } else if (rops[0].atom == DW_OP_call_frame_cfa && rops[rn - 1].atom != DW_OP_stack_value) {
            out->rbp = CfaRule::Rbp::Saved;
            if (rn == 1)
                out->rbp_at = 0;
            else if (rn == 2 && rops[1].atom == DW_OP_plus_uconst)
                out->rbp_at = static_cast<int64_t>(rops[1].number);
            else if (rn == 3 && rops[1].atom == DW_OP_consts && rops[2].atom == DW_OP_plus)
                out->rbp_at = static_cast<int64_t>(rops[1].number);
            else
                out->rbp = CfaRule::Rbp::Unknown;
        } else {
            out->rbp = CfaRule::Rbp::Unknown;
        }
    }
    std::free(frame);
    return out;
}

std::string read_build_id(const std::string& path) {
    auto f = ElfFile::open(path);
    return f ? f->build_id() : std::string();
}

}  // namespace iolens::symbols
