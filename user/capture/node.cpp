#include "capture/node.h"

#include <unistd.h>

#include <fstream>

#include "util/errno_text.h"

namespace iolens::capture {

std::string host_name() {
    char buf[256] = {};
    gethostname(buf, sizeof(buf) - 1);
    return buf;
}

std::string block_device_name(uint32_t dev) {
    const std::string id = std::to_string(dev >> 20) + ":" + std::to_string(dev & 0xfffff);
    std::ifstream in("/sys/dev/block/" + id + "/uevent");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("DEVNAME=", 0) == 0) return line.substr(8);
    return id;
}

Result<void> drop_page_cache() {
    sync();
    std::ofstream out("/proc/sys/vm/drop_caches");
    out << "3\n";
    out.flush();
    if (!out) return errno_error("cannot drop the page cache (/proc/sys/vm/drop_caches)");
    return {};
}

}  // namespace iolens::capture
