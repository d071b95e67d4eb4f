#include "known_calls.h"

#include "dataset.h"
#include "util.h"

#include <cerrno>
#include <cstring>

namespace wl::known {

std::string path_in(const char* dir, const char* name) { return std::string(dir) + "/" + name; }

std::vector<uint8_t> data_image() {
    std::vector<uint8_t> image(kDataSize);
    fill_content(kDataKey, 0, image.data(), image.size());
    return image;
}

void expect_ret(long got, long want, const char* call) {
    if (got < 0) fail_errno(errno, "%s failed", call);
    if (got != want) fail("%s returned %ld, expected %ld", call, got, want);
}

void expect_errno(long got, int err, const char* call) {
    if (got >= 0) fail("%s returned %ld, expected to fail with %s", call, got, strerrorname_np(err));
    if (errno != err)
        fail("%s failed with %s, expected %s", call, strerrorname_np(errno), strerrorname_np(err));
}

void expect_content(const std::vector<uint8_t>& image, const void* buf, size_t len, uint64_t offset,
                    const char* call) {
    if (offset > image.size() || len > image.size() - offset ||
        std::memcmp(image.data() + offset, buf, len) != 0)
        fail("%s: the bytes read differ from what known.dat must hold", call);
}

}  // namespace wl::known
