#include "probes/tracked_set.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace iolens::probes {

TrackedSet::~TrackedSet()
{
    if (words_)
        munmap(words_, mapped_bytes_);
}

Result<void> TrackedSet::map(int map_fd, size_t words)
{
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t bytes = (words * sizeof(uint64_t) + page - 1) / page * page;
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, map_fd, 0);
    if (p == MAP_FAILED)
        return make_error(std::string("cannot map the tracked-process bitmap: ") + std::strerror(errno));
    words_ = static_cast<uint64_t*>(p);
    count_ = words;
    mapped_bytes_ = bytes;
    return {};
}

bool TrackedSet::add(uint32_t pid)
{
    const size_t w = pid >> 6;
    if (!words_ || w >= count_)
        return false;
    __atomic_fetch_or(&words_[w], uint64_t{1} << (pid & 63), __ATOMIC_SEQ_CST);
    return true;
}

bool TrackedSet::contains(uint32_t pid) const
{
    const size_t w = pid >> 6;
    if (!words_ || w >= count_)
        return false;
    return (__atomic_load_n(&words_[w], __ATOMIC_SEQ_CST) >> (pid & 63)) & 1u;
}

}  // namespace iolens::probes
