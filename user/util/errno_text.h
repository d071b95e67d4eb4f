#pragma once
// The one way iolens turns an errno value into words: thread-safe (unlike
// std::strerror), and either sign (libbpf returns -errno).
#include <cerrno>
#include <string>
#include <system_error>

#include "util/result.h"

namespace iolens {

inline std::string errno_text(int err = errno) {
    return std::generic_category().message(err < 0 ? -err : err);
}

// "<what>: <errno text>", as an Error.
inline Error errno_error(const std::string& what, int err = errno) {
    return make_error(what + ": " + errno_text(err));
}

}  // namespace iolens
