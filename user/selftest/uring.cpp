#include "selftest/uring.h"

#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "util/errno_text.h"

namespace iolens::selftest {

namespace {

template <typename T>
T* at(void* base, uint32_t off) {
    return reinterpret_cast<T*>(static_cast<char*>(base) + off);
}

void* map(int fd, size_t len, off_t what) {
    void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, what);
    return p == MAP_FAILED ? nullptr : p;
}

}  // namespace

MiniRing::~MiniRing() { close(); }

bool MiniRing::open() {
    io_uring_params p{};
    fd_ = static_cast<int>(syscall(SYS_io_uring_setup, 4u, &p));
    if (fd_ < 0) return false;
    sq_len_ = p.sq_off.array + p.sq_entries * sizeof(uint32_t);
    cq_len_ = p.cq_off.cqes + p.cq_entries * sizeof(io_uring_cqe);
    const bool single = p.features & IORING_FEAT_SINGLE_MMAP;
    if (single && cq_len_ > sq_len_) sq_len_ = cq_len_;
    sq_ = map(fd_, sq_len_, IORING_OFF_SQ_RING);
    cq_ = single ? sq_ : map(fd_, cq_len_, IORING_OFF_CQ_RING);
    sqes_len_ = p.sq_entries * sizeof(io_uring_sqe);
    sqes_ = map(fd_, sqes_len_, IORING_OFF_SQES);
    if (!sq_ || !cq_ || !sqes_) {
        const int err = errno;
        close();
        errno = err;
        return false;
    }
    if (single) cq_len_ = 0;  // one mapping, unmapped once
    sq_off_tail_ = p.sq_off.tail;
    sq_off_mask_ = p.sq_off.ring_mask;
    sq_off_array_ = p.sq_off.array;
    cq_off_head_ = p.cq_off.head;
    cq_off_tail_ = p.cq_off.tail;
    cq_off_mask_ = p.cq_off.ring_mask;
    cq_off_cqes_ = p.cq_off.cqes;
    return true;
}

int32_t MiniRing::rw(uint8_t opcode, int fd, void* buf, uint32_t len, uint64_t off) {
    auto* sq_tail = at<std::atomic<uint32_t>>(sq_, sq_off_tail_);
    const uint32_t tail = sq_tail->load(std::memory_order_relaxed);
    const uint32_t slot = tail & *at<uint32_t>(sq_, sq_off_mask_);
    auto* e = static_cast<io_uring_sqe*>(sqes_) + slot;
    std::memset(e, 0, sizeof *e);
    e->opcode = opcode;
    e->fd = fd;
    e->addr = reinterpret_cast<uint64_t>(buf);
    e->len = len;
    e->off = off;
    at<uint32_t>(sq_, sq_off_array_)[slot] = slot;
    sq_tail->store(tail + 1, std::memory_order_release);
    auto* cq_head = at<std::atomic<uint32_t>>(cq_, cq_off_head_);
    auto* cq_tail = at<std::atomic<uint32_t>>(cq_, cq_off_tail_);
    for (unsigned submit = 1;;) {
        const uint32_t head = cq_head->load(std::memory_order_relaxed);
        if (head != cq_tail->load(std::memory_order_acquire)) {
            const uint32_t mask = *at<uint32_t>(cq_, cq_off_mask_);
            const int32_t res = at<io_uring_cqe>(cq_, cq_off_cqes_)[head & mask].res;
            cq_head->store(head + 1, std::memory_order_release);
            return res;
        }
        if (syscall(SYS_io_uring_enter, fd_, submit, 1u, IORING_ENTER_GETEVENTS, nullptr, 0) < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        submit = 0;
    }
}

bool MiniRing::close() {
    if (sqes_) munmap(sqes_, sqes_len_);
    if (cq_ && cq_ != sq_ && cq_len_) munmap(cq_, cq_len_);
    if (sq_) munmap(sq_, sq_len_);
    sq_ = cq_ = sqes_ = nullptr;
    if (fd_ < 0) return true;
    const int fd = fd_;
    fd_ = -1;
    return ::close(fd) == 0;
}

std::string io_uring_unusable() {
    io_uring_params p{};
    const int fd = static_cast<int>(syscall(SYS_io_uring_setup, 4u, &p));
    if (fd < 0) return "io_uring_setup failed: " + errno_text() + " (no io_uring here, or io_uring_disabled)";
    ::close(fd);
    return "";
}

}  // namespace iolens::selftest
