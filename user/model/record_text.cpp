#include "model/record_text.h"

#include <cstdint>
#include <cstring>

#include "model/report.h"

namespace iolens::model {

namespace {
// NUL-separated fields of bytes[0, len), empty ones dropped.
std::vector<std::string_view> split_nul(const char* bytes, size_t len) {
    std::vector<std::string_view> out;
    size_t start = 0;
    for (size_t i = 0; i <= len; ++i) {
        if (i == len || bytes[i] == '\0') {
            if (i > start) out.emplace_back(bytes + start, i - start);
            start = i + 1;
        }
    }
    return out;
}
}  // namespace

std::string path_from_components(const char* bytes, size_t len, bool truncated) {
    const auto parts = split_nul(bytes, len);
    std::string path(truncated ? kTruncatedPathPrefix : std::string_view{});
    size_t size = path.size() + parts.size() + 1;
    for (auto p : parts) size += p.size();
    path.reserve(size);
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
        // The root dentry is named "/"; a walk that includes it must not
        // produce "//home".
        if (*it == "/") continue;
        path += '/';
        path += *it;
    }
    if (path.empty() || path == kTruncatedPathPrefix) path += '/';
    return path;
}

std::vector<std::string> split_args(const char* bytes, size_t len) {
    std::vector<std::string> out;
    // Empty arguments are real argv entries (e.g. `prog ""`), so split
    // exactly on NULs rather than dropping empty fields; only the final NUL
    // terminates the last argument instead of starting a new one.
    size_t start = 0;
    for (size_t i = 0; i < len; ++i) {
        if (bytes[i] == '\0') {
            out.emplace_back(bytes + start, i - start);
            start = i + 1;
        }
    }
    if (start < len) out.emplace_back(bytes + start, len - start);
    return out;
}

std::string comm_string(const char* bytes, size_t cap) { return std::string(bytes, strnlen(bytes, cap)); }

std::string unnamed_file(uint32_t dev, uint64_t ino) {
    return "<dev " + std::to_string(recording::dev_major(dev)) + ":" +
           std::to_string(recording::dev_minor(dev)) + " ino " + std::to_string(ino) + ">";
}

}  // namespace iolens::model
