// The `known` scenario: a fixed multi-process run whose file syscalls are
// listed one by one in docs/workload.md. Shared by its main process, its forked
// child and its exec'd child (known-exec-child).
//
// Every call of the scenario is checked against its expected result, so a run
// that exits 0 made exactly the calls the table lists, with the listed results.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace wl::known {

// D/known.dat: written by main, read by the children, mapped by main.
inline constexpr const char* kDataName = "known.dat";
inline constexpr uint64_t kDataSize = 131072;
inline constexpr uint64_t kDataKey = 0x696F6C656E73ull;  // "iolens"
// D/does-not-exist: the target of the failing open and the failing access.
inline constexpr const char* kMissingName = "does-not-exist";
// Main <-> child-a message rounds over pipes (none of them is file I/O).
inline constexpr int kPingPongRounds = 256;

std::string path_in(const char* dir, const char* name);

// The bytes known.dat must hold.
std::vector<uint8_t> data_image();

// `got` must be the return value `want`; an error return is reported with errno.
void expect_ret(long got, long want, const char* call);

// `got` must be a failure with errno `err`.
void expect_errno(long got, int err, const char* call);

// buf[0, len) must equal known.dat at `offset`.
void expect_content(const std::vector<uint8_t>& image, const void* buf, size_t len, uint64_t offset,
                    const char* call);

// The forked child ("child-a"): pipe traffic with main on (from_main, to_main)
// after closing main's ends (main_keeps_w, main_keeps_r), then the read-class
// and seek-class calls on known.dat. Exits 0 on success.
struct ChildAPipes {
    int from_main;
    int to_main;
    int main_keeps_w;
    int main_keeps_r;
};
[[noreturn]] void child_a_main(const char* dir, const std::vector<uint8_t>& image, ChildAPipes pipes);

}  // namespace wl::known
