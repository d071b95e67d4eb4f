#pragma once
// Decoding the text fields of kernel records (iolens/abi.h) into strings. The
// kernel side writes raw bytes; nothing here trusts them to be NUL-terminated.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace iolens::model {

// Marks a path whose in-kernel walk stopped before the root: what follows is
// only the tail of the real path. ASCII so it is one column per byte on every
// terminal and plain in JSON.
inline constexpr std::string_view kTruncatedPathPrefix = "...";

// The absolute path from the leaf-first, NUL-separated components of a file
// record ("c.bin\0data\0home\0" -> "/home/data/c.bin"). A truncated walk gives
// ".../data/c.bin"; no components gives "/".
std::string path_from_components(const char* bytes, size_t len, bool truncated);

// argv from len bytes of NUL-separated arguments (a missing final NUL is
// tolerated: the kernel side cuts long command lines).
std::vector<std::string> split_args(const char* bytes, size_t len);

// A fixed-size comm field, up to its first NUL.
std::string comm_string(const char* bytes, size_t cap);

// "<dev 8:1 ino 1234>": the name of a file whose path was never recorded.
std::string unnamed_file(uint32_t dev, uint64_t ino);

}  // namespace iolens::model
