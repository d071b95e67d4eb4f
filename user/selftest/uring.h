#pragma once
// The least io_uring the self-test's worker D needs: one ring made with the
// raw syscalls (no liburing), one request submitted and waited for at a time.
#include <cstdint>
#include <string>

namespace iolens::selftest {

class MiniRing {
public:
    MiniRing() = default;
    MiniRing(const MiniRing&) = delete;
    MiniRing& operator=(const MiniRing&) = delete;
    ~MiniRing();

    // Sets up a ring of a few entries; false (errno set) if io_uring_setup or
    // mapping its rings fails.
    bool open();
    // One IORING_OP_READ or IORING_OP_WRITE of len bytes at off, waited for:
    // the completion's res (bytes, or -errno); -errno of io_uring_enter if
    // submitting failed.
    int32_t rw(uint8_t opcode, int fd, void* buf, uint32_t len, uint64_t off);
    // Closes the ring's fd (one close(2), as a plain fd's).
    bool close();

private:
    int fd_ = -1;
    void* sq_ = nullptr;
    size_t sq_len_ = 0;
    void* cq_ = nullptr;
    size_t cq_len_ = 0;
    void* sqes_ = nullptr;
    size_t sqes_len_ = 0;
    uint32_t sq_off_tail_ = 0, sq_off_mask_ = 0, sq_off_array_ = 0;
    uint32_t cq_off_head_ = 0, cq_off_tail_ = 0, cq_off_mask_ = 0, cq_off_cqes_ = 0;
};

// Why this process cannot use io_uring (io_uring_setup fails: ENOSYS on a
// kernel built without it, EPERM where io_uring_disabled forbids it), or "".
std::string io_uring_unusable();

}  // namespace iolens::selftest
