// uring: a file read or written whole through an io_uring, made with the raw
// syscalls (io_uring_setup, mmap of the rings, io_uring_enter; no liburing):
// D requests per io_uring_enter, each batch reaped whole before the next.
// iolens counts each request in its class, marked path io_uring. With
// --ring-meta the file is also opened, stat'ed and closed by ring requests
// (IORING_OP_OPENAT, STATX, CLOSE); with --vectored each read (write) is a
// READV (WRITEV) of two iovecs.
#include "args.h"
#include "modes.h"
#include "page_cache.h"
#include "sys.h"
#include "util.h"

#include <fcntl.h>
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace wl {

namespace {

constexpr uint64_t kMaxDepth = 4096;

template <typename T>
T* at(void* base, uint32_t off) {
    return reinterpret_cast<T*>(static_cast<char*>(base) + off);
}

void* map_ring(int ring, size_t size, off_t what, const char* name) {
    void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, what);
    if (p == MAP_FAILED) fail_errno(errno, "cannot map the io_uring %s", name);
    return p;
}

// One io_uring and its mapped rings.
class Ring {
public:
    // sqpoll: a kernel thread of the ring's owner (iou-sqp-PID, 5.12+)
    // submits the SQEs; io_uring_enter only waits (and wakes it).
    explicit Ring(uint64_t depth, bool sqpoll = false) : sqpoll_(sqpoll) {
        io_uring_params p{};
        if (sqpoll) {
            p.flags = IORING_SETUP_SQPOLL;
            p.sq_thread_idle = 1000;  // ms
        }
        fd_ = static_cast<int>(::syscall(SYS_io_uring_setup, static_cast<unsigned>(depth), &p));
        if (fd_ < 0) fail_errno(errno, "io_uring_setup(%llu)", static_cast<unsigned long long>(depth));
        const size_t sq_size = p.sq_off.array + p.sq_entries * sizeof(uint32_t);
        const size_t cq_size = p.cq_off.cqes + p.cq_entries * sizeof(io_uring_cqe);
        const bool single = p.features & IORING_FEAT_SINGLE_MMAP;
        void* sq =
            map_ring(fd_, single && cq_size > sq_size ? cq_size : sq_size, IORING_OFF_SQ_RING, "SQ ring");
        void* cq = single ? sq : map_ring(fd_, cq_size, IORING_OFF_CQ_RING, "CQ ring");
        sqes_ = static_cast<io_uring_sqe*>(
            map_ring(fd_, p.sq_entries * sizeof(io_uring_sqe), IORING_OFF_SQES, "SQEs"));
        sq_tail_ = at<std::atomic<uint32_t>>(sq, p.sq_off.tail);
        sq_mask_ = *at<uint32_t>(sq, p.sq_off.ring_mask);
        sq_array_ = at<uint32_t>(sq, p.sq_off.array);
        cq_head_ = at<std::atomic<uint32_t>>(cq, p.cq_off.head);
        cq_tail_ = at<std::atomic<uint32_t>>(cq, p.cq_off.tail);
        cq_mask_ = *at<uint32_t>(cq, p.cq_off.ring_mask);
        cqes_ = at<io_uring_cqe>(cq, p.cq_off.cqes);
        tail_ = sq_tail_->load(std::memory_order_relaxed);
    }
    int fd() const { return fd_; }
    // The next SQE, zeroed; it is submitted by the next submit_and_wait().
    io_uring_sqe* next() {
        const uint32_t slot = tail_ & sq_mask_;
        io_uring_sqe* e = &sqes_[slot];
        std::memset(e, 0, sizeof *e);
        sq_array_[slot] = slot;
        tail_++;
        queued_++;
        return e;
    }
    // Submits the queued SQEs and waits for all of them; check(cqe) each.
    template <typename Check>
    void submit_and_wait(const char* what, Check check) {
        const uint32_t batch = queued_;
        sq_tail_->store(tail_, std::memory_order_release);
        queued_ = 0;
        for (uint32_t done = 0; done < batch;) {
            const unsigned flags = IORING_ENTER_GETEVENTS | (sqpoll_ ? IORING_ENTER_SQ_WAKEUP : 0u);
            const long r =
                ::syscall(SYS_io_uring_enter, fd_, done == 0 ? batch : 0u, batch - done, flags, nullptr, 0);
            if (r < 0) {
                if (errno == EINTR) continue;
                fail_errno(errno, "io_uring_enter (%s)", what);
            }
            uint32_t head = cq_head_->load(std::memory_order_relaxed);
            const uint32_t ctail = cq_tail_->load(std::memory_order_acquire);
            for (; head != ctail; head++, done++) check(cqes_[head & cq_mask_]);
            cq_head_->store(head, std::memory_order_release);
        }
    }
    // One request, waited for: its result.
    int32_t one(const char* what) {
        int32_t res = 0;
        submit_and_wait(what, [&](const io_uring_cqe& c) { res = c.res; });
        return res;
    }

private:
    int fd_ = -1;
    bool sqpoll_ = false;
    io_uring_sqe* sqes_ = nullptr;
    std::atomic<uint32_t>*sq_tail_ = nullptr, *cq_head_ = nullptr, *cq_tail_ = nullptr;
    uint32_t sq_mask_ = 0, cq_mask_ = 0, tail_ = 0, queued_ = 0;
    uint32_t* sq_array_ = nullptr;
    io_uring_cqe* cqes_ = nullptr;
};

// IORING_OP_OPENAT of path, then IORING_OP_STATX of it: the fd and the size.
int ring_open(Ring& ring, const char* path, int flags, uint64_t& size) {
    io_uring_sqe* e = ring.next();
    e->opcode = IORING_OP_OPENAT;
    e->fd = AT_FDCWD;
    e->addr = reinterpret_cast<uint64_t>(path);
    e->open_flags = static_cast<uint32_t>(flags);
    const int fd = ring.one("openat");
    if (fd < 0) fail_errno(-fd, "IORING_OP_OPENAT of %s", path);
    struct ::statx stx {};
    e = ring.next();
    e->opcode = IORING_OP_STATX;
    e->fd = AT_FDCWD;
    e->addr = reinterpret_cast<uint64_t>(path);
    e->len = STATX_SIZE;
    e->off = reinterpret_cast<uint64_t>(&stx);
    if (const int r = ring.one("statx"); r < 0) fail_errno(-r, "IORING_OP_STATX of %s", path);
    size = stx.stx_size;
    return fd;
}

void ring_close(Ring& ring, int fd, const char* path) {
    io_uring_sqe* e = ring.next();
    e->opcode = IORING_OP_CLOSE;
    e->fd = fd;
    if (const int r = ring.one("close"); r < 0) fail_errno(-r, "IORING_OP_CLOSE of %s", path);
}

struct Job {
    const char* path;
    bool write, fixed, vectored, async;
    uint64_t chunk, depth, n;
    int fd;
};

// S/C requests of C bytes in file order, D per io_uring_enter.
void transfer(Ring& ring, const Job& j) {
    uint8_t* buf = alloc_aligned(j.depth * j.chunk);
    std::memset(buf, 0x5a, j.depth * j.chunk);
    std::vector<iovec> iov(2 * j.depth);
    const uint8_t op = j.vectored ? (j.write ? IORING_OP_WRITEV : IORING_OP_READV)
                                  : (j.write ? IORING_OP_WRITE : IORING_OP_READ);
    for (uint64_t next = 0; next < j.n;) {
        const uint64_t batch = j.n - next < j.depth ? j.n - next : j.depth;
        for (uint64_t i = 0; i < batch; i++) {
            io_uring_sqe* e = ring.next();
            e->opcode = op;
            e->fd = j.fixed ? 0 : j.fd;
            e->flags = (j.fixed ? IOSQE_FIXED_FILE : 0) | (j.async ? IOSQE_ASYNC : 0);
            e->off = (next + i) * j.chunk;
            e->addr = reinterpret_cast<uint64_t>(buf + i * j.chunk);
            e->len = static_cast<uint32_t>(j.chunk);
            e->user_data = next + i;
            if (j.vectored) {  // the chunk as two halves
                iov[2 * i] = {buf + i * j.chunk, j.chunk / 2};
                iov[2 * i + 1] = {buf + i * j.chunk + j.chunk / 2, j.chunk - j.chunk / 2};
                e->addr = reinterpret_cast<uint64_t>(&iov[2 * i]);
                e->len = 2;
            }
        }
        ring.submit_and_wait(j.path, [&](const io_uring_cqe& c) {
            if (c.res != static_cast<int32_t>(j.chunk))
                fail("a %llu-byte io_uring %s of %s returned %d", static_cast<unsigned long long>(j.chunk),
                     j.write ? "write" : "read", j.path, c.res);
        });
        next += batch;
    }
    std::free(buf);
}

}  // namespace

// openat(O_RDONLY or O_RDWR [|O_DIRECT]) and fstat (or, with --ring-meta,
// IORING_OP_OPENAT and IORING_OP_STATX after io_uring_setup), io_uring_setup(D),
// mmap of the rings (not file mappings), [io_uring_register of the file with
// --fixed], then S/C requests of C bytes in file order (READV/WRITEV of two
// iovecs with --vectored), D per io_uring_enter (which waits for all D),
// [IORING_OP_CLOSE of the file with --ring-meta], munmap, close(ring),
// close(file) (not with --ring-meta). --sqpoll: the ring's SQPOLL thread
// submits the requests; --async: each request is sent to an io-wq worker
// (IOSQE_ASYNC). Both kinds of thread belong to the process (5.12+).
int run_uring(int argc, char** argv) {
    const Args args({{"file", true},
                     {"op", true},
                     {"chunk", true},
                     {"depth", true},
                     {"direct", false},
                     {"fixed", false},
                     {"vectored", false},
                     {"ring-meta", false},
                     {"sqpoll", false},
                     {"async", false}},
                    argc, argv);
    Job j{};
    j.path = args.text("file");
    const std::string_view op = args.text_or("op", "read");
    j.chunk = args.number_or("chunk", 4096, 1, uint64_t{1} << 26);
    j.depth = args.number_or("depth", 8, 1, kMaxDepth);
    const bool direct = args.flag("direct"), meta = args.flag("ring-meta");
    j.fixed = args.flag("fixed");
    j.vectored = args.flag("vectored");
    j.async = args.flag("async");
    const bool sqpoll = args.flag("sqpoll");
    if (op != "read" && op != "write")
        fail_usage("--op %.*s: expected read or write", static_cast<int>(op.size()), op.data());
    if (direct && j.chunk % (j.vectored ? 2 * kPageSize : kPageSize) != 0)
        fail_usage("--chunk %llu: O_DIRECT needs a multiple of %llu",
                   static_cast<unsigned long long>(j.chunk),
                   static_cast<unsigned long long>(j.vectored ? 2 * kPageSize : kPageSize));
    j.write = op == "write";
    const int flags = (j.write ? O_RDWR : O_RDONLY) | O_CLOEXEC | (direct ? O_DIRECT : 0);
    uint64_t size = 0;
    std::unique_ptr<Ring> ring;
    if (meta) {
        ring = std::make_unique<Ring>(j.depth, sqpoll);
        j.fd = ring_open(*ring, j.path, flags, size);
    } else {
        j.fd = sc::openat(AT_FDCWD, j.path, flags);
        if (j.fd < 0) fail_errno(errno, "cannot open %s", j.path);
        size = regular_file_size(j.fd, j.path);
        ring = std::make_unique<Ring>(j.depth, sqpoll);
    }
    if (size == 0 || size % j.chunk != 0)
        fail("%s: its size (%llu) must be a non-zero multiple of --chunk (%llu)", j.path,
             static_cast<unsigned long long>(size), static_cast<unsigned long long>(j.chunk));
    j.n = size / j.chunk;
    if (j.fixed && ::syscall(SYS_io_uring_register, ring->fd(), IORING_REGISTER_FILES, &j.fd, 1) != 0)
        fail_errno(errno, "io_uring_register(IORING_REGISTER_FILES)");
    transfer(*ring, j);
    if (meta) ring_close(*ring, j.fd, j.path);
    if (sc::close(ring->fd()) != 0) fail_errno(errno, "cannot close the io_uring");
    if (!meta && sc::close(j.fd) != 0) fail_errno(errno, "cannot close %s", j.path);
    return kExitOk;
}

}  // namespace wl
