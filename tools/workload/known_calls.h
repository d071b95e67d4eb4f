// The helpers the `known` scenario's three processes make their calls with:
// its main process (known_mode.cpp), its forked child (child-a,
// known_child_a.cpp) and its exec'd child (known_exec_child.cpp). What the
// calls must add up to is known.h.
#pragma once

#include "known.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace wl::known {

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
