#pragma once
// `iolens --version`: the release (CMake's project version), the git commit
// the binary was built from (cmake/build_info.cmake; "unknown" outside a
// checkout) and the BPF objects it carries, by probe family and build.
#include <string>

namespace iolens::cli {

// The commit, with " (modified)" when the sources had uncommitted changes.
std::string build_commit();
// The whole --version text, several lines, ending in a newline.
std::string version_text();

}  // namespace iolens::cli
