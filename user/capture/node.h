#pragma once
// Facts about this node the recorder writes down, and what it may do to it.
#include <cstdint>
#include <string>

#include "util/result.h"

namespace iolens::capture {

std::string host_name();
// "vda" for a kernel dev_t, from /sys/dev/block/MAJ:MIN/uevent; "MAJ:MIN"
// if the device is gone.
std::string block_device_name(uint32_t dev);
// Writes dirty pages back, then drops clean page cache, dentries and inodes,
// so what the traced job reads comes from the device (--drop-caches).
Result<void> drop_page_cache();

}  // namespace iolens::capture
