#pragma once
// Function symbols of one ELF file, read with BCC's ELF symbol reader
// (libbcc: bcc_elf_foreach_sym, which also finds the file's separate debug
// file through /usr/lib/debug/.build-id and .gnu_debuglink). libbcc is
// loaded with dlopen the first time symbols are wanted: it pulls in LLVM,
// which every other iolens command can do without.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace iolens::symbols {

class SymbolTable {
public:
    struct Symbol {
        uint64_t addr = 0;
        uint64_t size = 0;
        std::string name;  // demangled
    };
    // The function containing vaddr: the closest symbol at or below it whose
    // size covers it (a symbol of size 0 covers up to the next one).
    const Symbol* find(uint64_t vaddr) const;
    size_t size() const { return syms_.size(); }

    // For load_symbols and tests: takes symbols in any order.
    void add(uint64_t addr, uint64_t size, std::string name);
    void seal();

private:
    std::vector<Symbol> syms_;
};

// The function symbols of the ELF file at path, demangled; nullopt with
// *why set when libbcc cannot be loaded or the file cannot be read.
std::optional<SymbolTable> load_symbols(const std::string& path, std::string* why);

// C++ names demangled ("ns::f(int)"); others as given.
std::string demangle(const char* name);

}  // namespace iolens::symbols
