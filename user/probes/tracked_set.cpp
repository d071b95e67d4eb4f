#include "probes/tracked_set.h"

#include <sys/mman.h>
#include <unistd.h>

#include "util/errno_text.h"

namespace iolens::probes {

TrackedSet::~TrackedSet() {
    if (bytes_) munmap(bytes_, mapped_bytes_);
}

Result<void> TrackedSet::map(int map_fd, size_t slots) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t bytes = (slots * sizeof(uint64_t) + page - 1) / page * page;
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
    if (p == MAP_FAILED) return errno_error("cannot map the tracked-process set");
    bytes_ = static_cast<uint8_t*>(p);
    count_ = slots * sizeof(uint64_t);
    mapped_bytes_ = bytes;
    return {};
}

bool TrackedSet::add(uint32_t pid) {
    if (!bytes_ || pid >= count_) return false;
    __atomic_store_n(&bytes_[pid], uint8_t{1}, __ATOMIC_SEQ_CST);
    return true;
}

bool TrackedSet::contains(uint32_t pid) const {
    if (!bytes_ || pid >= count_) return false;
    return __atomic_load_n(&bytes_[pid], __ATOMIC_SEQ_CST) != 0;
}

}  // namespace iolens::probes
