// uring: a file read or written whole through an io_uring, made with the raw
// syscalls (io_uring_setup, mmap of the rings, io_uring_enter; no liburing):
// D requests per io_uring_enter, each batch reaped whole before the next.
// iolens counts each request in its class, marked path io_uring.
#include "args.h"
#include "modes.h"
#include "page_cache.h"
#include "sys.h"
#include "util.h"

#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>

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

}  // namespace

// openat(O_RDONLY or O_RDWR [|O_DIRECT]), fstat, io_uring_setup(D), mmap of
// the rings (not file mappings), [io_uring_register of the file with
// --fixed], then S/C requests of C bytes in file order, D per io_uring_enter
// (which waits for all D), munmap, close(ring), close(file).
int run_uring(int argc, char** argv) {
    const Args args(
        {{"file", true}, {"op", true}, {"chunk", true}, {"depth", true}, {"direct", false}, {"fixed", false}},
        argc, argv);
    const char* path = args.text("file");
    const std::string_view op = args.text_or("op", "read");
    const uint64_t chunk = args.number_or("chunk", 4096, 1, uint64_t{1} << 26);
    const uint64_t depth = args.number_or("depth", 8, 1, kMaxDepth);
    const bool direct = args.flag("direct"), fixed = args.flag("fixed");
    if (op != "read" && op != "write")
        fail_usage("--op %.*s: expected read or write", static_cast<int>(op.size()), op.data());
    if (direct && chunk % kPageSize != 0)
        fail_usage("--chunk %llu: O_DIRECT needs a multiple of %llu", static_cast<unsigned long long>(chunk),
                   static_cast<unsigned long long>(kPageSize));
    const bool write = op == "write";
    const int fd =
        sc::openat(AT_FDCWD, path, (write ? O_RDWR : O_RDONLY) | O_CLOEXEC | (direct ? O_DIRECT : 0));
    if (fd < 0) fail_errno(errno, "cannot open %s", path);
    const uint64_t size = regular_file_size(fd, path);
    if (size == 0 || size % chunk != 0)
        fail("%s: its size (%llu) must be a non-zero multiple of --chunk (%llu)", path,
             static_cast<unsigned long long>(size), static_cast<unsigned long long>(chunk));
    const uint64_t n = size / chunk;

    io_uring_params p{};
    const int ring = static_cast<int>(::syscall(SYS_io_uring_setup, static_cast<unsigned>(depth), &p));
    if (ring < 0) fail_errno(errno, "io_uring_setup(%llu)", static_cast<unsigned long long>(depth));
    const size_t sq_size = p.sq_off.array + p.sq_entries * sizeof(uint32_t);
    const size_t cq_size = p.cq_off.cqes + p.cq_entries * sizeof(io_uring_cqe);
    const bool single = p.features & IORING_FEAT_SINGLE_MMAP;
    void* sq = map_ring(ring, single && cq_size > sq_size ? cq_size : sq_size, IORING_OFF_SQ_RING, "SQ ring");
    void* cq = single ? sq : map_ring(ring, cq_size, IORING_OFF_CQ_RING, "CQ ring");
    auto* sqes = static_cast<io_uring_sqe*>(
        map_ring(ring, p.sq_entries * sizeof(io_uring_sqe), IORING_OFF_SQES, "SQEs"));
    auto* sq_tail = at<std::atomic<uint32_t>>(sq, p.sq_off.tail);
    const uint32_t sq_mask = *at<uint32_t>(sq, p.sq_off.ring_mask);
    uint32_t* sq_array = at<uint32_t>(sq, p.sq_off.array);
    auto* cq_head = at<std::atomic<uint32_t>>(cq, p.cq_off.head);
    auto* cq_tail = at<std::atomic<uint32_t>>(cq, p.cq_off.tail);
    const uint32_t cq_mask = *at<uint32_t>(cq, p.cq_off.ring_mask);
    auto* cqes = at<io_uring_cqe>(cq, p.cq_off.cqes);
    if (fixed && ::syscall(SYS_io_uring_register, ring, IORING_REGISTER_FILES, &fd, 1) != 0)
        fail_errno(errno, "io_uring_register(IORING_REGISTER_FILES)");

    uint8_t* buf = alloc_aligned(depth * chunk);
    std::memset(buf, 0x5a, depth * chunk);
    for (uint64_t next = 0; next < n;) {
        const uint64_t batch = n - next < depth ? n - next : depth;
        uint32_t tail = sq_tail->load(std::memory_order_relaxed);
        for (uint64_t i = 0; i < batch; i++, tail++) {
            const uint32_t slot = tail & sq_mask;
            io_uring_sqe* e = &sqes[slot];
            std::memset(e, 0, sizeof *e);
            e->opcode = write ? IORING_OP_WRITE : IORING_OP_READ;
            e->fd = fixed ? 0 : fd;
            e->flags = fixed ? IOSQE_FIXED_FILE : 0;
            e->off = (next + i) * chunk;
            e->addr = reinterpret_cast<uint64_t>(buf + i * chunk);
            e->len = static_cast<uint32_t>(chunk);
            e->user_data = next + i;
            sq_array[slot] = slot;
        }
        sq_tail->store(tail, std::memory_order_release);
        uint64_t done = 0;
        while (done < batch) {
            const long r = ::syscall(SYS_io_uring_enter, ring, done == 0 ? static_cast<unsigned>(batch) : 0u,
                                     static_cast<unsigned>(batch - done), IORING_ENTER_GETEVENTS, nullptr, 0);
            if (r < 0) {
                if (errno == EINTR) continue;
                fail_errno(errno, "io_uring_enter on %s", path);
            }
            uint32_t head = cq_head->load(std::memory_order_relaxed);
            const uint32_t ctail = cq_tail->load(std::memory_order_acquire);
            for (; head != ctail; head++, done++) {
                const io_uring_cqe& c = cqes[head & cq_mask];
                if (c.res != static_cast<int32_t>(chunk))
                    fail("a %llu-byte io_uring %.*s of %s returned %d",
                         static_cast<unsigned long long>(chunk), static_cast<int>(op.size()), op.data(), path,
                         c.res);
            }
            cq_head->store(head, std::memory_order_release);
        }
        next += batch;
    }
    if (sc::close(ring) != 0) fail_errno(errno, "cannot close the io_uring");
    if (sc::close(fd) != 0) fail_errno(errno, "cannot close %s", path);
    std::free(buf);
    return kExitOk;
}

}  // namespace wl
