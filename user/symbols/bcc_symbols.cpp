#include "symbols/bcc_symbols.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <elf.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>

namespace iolens::symbols {

namespace {

// The parts of BCC's C API used here (bcc_elf.h, bcc_syms.h of libbpfcc-dev
// 0.26), declared for dlsym.
struct BccSymbolOption {
    int use_debug_file;
    int check_debug_file_crc;
    int lazy_symbolize;
    uint32_t use_symbol_type;
};
using SymCb = int (*)(const char* name, uint64_t addr, uint64_t size, void* payload);
using ForeachSym = int (*)(const char* path, SymCb cb, void* option, void* payload);

struct Bcc {
    ForeachSym foreach_sym = nullptr;
    std::string error;
};

const Bcc& bcc() {
    static Bcc b;
    static std::once_flag once;
    std::call_once(once, [] {
        void* h = dlopen("libbcc.so.0", RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            const char* e = dlerror();
            b.error = std::string("libbcc is not available (install libbpfcc): ") + (e ? e : "dlopen failed");
            return;
        }
        b.foreach_sym = reinterpret_cast<ForeachSym>(dlsym(h, "bcc_elf_foreach_sym"));
        if (!b.foreach_sym) b.error = "libbcc has no bcc_elf_foreach_sym";
    });
    return b;
}

}  // namespace

std::string demangle(const char* name) {
    if (!name) return {};
    if (name[0] == '_' && name[1] == 'Z') {
        int status = 0;
        char* d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
        if (d && status == 0) {
            std::string out(d);
            std::free(d);
            return out;
        }
        std::free(d);
    }
    return name;
}

void SymbolTable::add(uint64_t addr, uint64_t size, std::string name) {
    syms_.push_back({addr, size, std::move(name)});
}

void SymbolTable::seal() {
    std::sort(syms_.begin(), syms_.end(), [](const Symbol& a, const Symbol& b) {
        if (a.addr != b.addr) return a.addr < b.addr;
        return a.size > b.size;  // of aliases at one address, the sized one first
    });
    // One symbol per address (aliases: the first after sorting).
    syms_.erase(std::unique(syms_.begin(), syms_.end(),
                            [](const Symbol& a, const Symbol& b) { return a.addr == b.addr; }),
                syms_.end());
}

const SymbolTable::Symbol* SymbolTable::find(uint64_t vaddr) const {
    auto it = std::upper_bound(syms_.begin(), syms_.end(), vaddr,
                               [](uint64_t v, const Symbol& s) { return v < s.addr; });
    if (it == syms_.begin()) return nullptr;
    const Symbol& s = *std::prev(it);
    if (s.size ? vaddr - s.addr < s.size : true) return &s;
    return nullptr;
}

std::optional<SymbolTable> load_symbols(const std::string& path, std::string* why) {
    const Bcc& b = bcc();
    if (!b.foreach_sym) {
        if (why) *why = b.error;
        return std::nullopt;
    }
    BccSymbolOption opt{1, 1, 0, (1u << STT_FUNC) | (1u << 10 /* STT_GNU_IFUNC */)};
    SymbolTable table;
    const SymCb cb = [](const char* name, uint64_t addr, uint64_t size, void* payload) -> int {
        if (name && *name && addr) static_cast<SymbolTable*>(payload)->add(addr, size, demangle(name));
        return 0;
    };
    if (b.foreach_sym(path.c_str(), cb, &opt, &table) < 0) {
        if (why) *why = "cannot read the symbols of " + path;
        return std::nullopt;
    }
    table.seal();
    return table;
}

}  // namespace iolens::symbols
