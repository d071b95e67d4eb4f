#pragma once
// "Which code issued this I/O": the calls of a recording made with
// `record --stacks`, charged to their user stacks, symbolized
// (docs/call-sites.md).
//
// A call whose own stack was taken (a stack record with its thread and start
// time just before it) is charged to that stack. A call without one is
// charged to the last stack taken for its thread on the same file: every
// thread's first call on each file has its stack, so a file read from one
// place in the code is charged there exactly; a file read from several places
// is split as the samples fall. Identical stacks of different processes are
// one call site.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace iolens::model {

struct CallSiteFrame {
    std::string function;  // "" when not known
    std::string module;    // the file's path, "[vdso]", or "" (address in no known mapping)
    uint64_t offset = 0;   // in the module's file (a return address minus one), or the address
};

struct CallSite {
    std::vector<CallSiteFrame> frames;  // innermost first
    uint64_t calls = 0;
    uint64_t stacks = 0;  // of those, calls whose own stack was taken
    uint64_t read_bytes = 0, write_bytes = 0;
    uint64_t time_ns = 0;           // in the calls
    uint64_t cache_miss_bytes = 0;  // brought into the page cache during them
    std::string top_file;           // the file it moved most bytes of (or called most)
    uint64_t top_file_bytes = 0;
    uint64_t files = 0;  // distinct files
};

// The calls of the call sites whose innermost frame outside the C and C++
// runtimes (libc, the dynamic loader, libpthread, libstdc++, libgcc_s) is in
// one module: "which library did this I/O" (libpython, libtorch, an image
// decoder, the program itself).
struct LibraryStats {
    std::string module;  // path; "" when no frame was outside the runtimes
    uint64_t calls = 0;
    uint64_t read_bytes = 0, write_bytes = 0;
    uint64_t time_ns = 0;
    uint64_t cache_miss_bytes = 0;
    uint64_t sites = 0;
};

struct CallSites {
    std::string spec;                     // record --stacks as given
    uint64_t stacks = 0;                  // stack records
    uint64_t calls = 0;                   // calls charged to a call site
    uint64_t calls_without = 0;           // calls with no stack of their own or before them on that file
    std::vector<CallSite> sites;          // by read+write bytes, then time, descending
    std::vector<LibraryStats> libraries;  // by read+write bytes, then time, descending
    std::vector<std::string> notes;       // modules whose functions could not be named, and why
};

// The folded stacks flame-graph tools read ("outer;...;inner weight"), one
// line per call site; weight "bytes" (read + write), "time" (ns) or "calls".
std::string folded_stacks(const CallSites& sites, const std::string& weight);
// The module a call site is charged to in CallSites::libraries.
std::string library_of(const CallSite& site);
// "function (module)" of a frame, as the terminal shows it; a frame without a
// name is "module+0xoffset".
std::string frame_text(const CallSiteFrame& f);

}  // namespace iolens::model
