// aio: a file read or written whole by Linux AIO, D requests per io_submit,
// each batch reaped by io_getevents (the AIO data path's exact counts).
//
// reverse-aio-read: O_DIRECT reads of a whole file submitted in one io_submit
// call, last chunk first. The kernel plugs the submission, so each read's bio
// ends where the previous one's request starts and is merged at its front
// (block_bio_frontmerge): the request that reaches the device starts at a
// sector no bio it was allocated for started at. The block probe must still
// charge it to this process (tests/privileged/page_cache_test.cpp).
#include "args.h"
#include "modes.h"
#include "page_cache.h"
#include "sys.h"
#include "util.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

namespace wl {

namespace {

// io_setup's per-context limit is the system's aio-max-nr (65536 by default);
// a few hundred reads are plenty to cover a test file.
constexpr uint64_t kMaxReads = 1024;

}  // namespace

// openat(O_RDONLY|O_DIRECT), fstat, io_setup(N), io_submit(N reads, offsets
// descending), io_getevents until N complete, io_destroy, close.
int run_reverse_aio_read(int argc, char** argv) {
    const Args args({{"file", true}, {"chunk", true}}, argc, argv);
    const char* path = args.text("file");
    const uint64_t chunk = args.number_or("chunk", 65536, kPageSize, uint64_t{1} << 26);
    if (chunk % kPageSize != 0)
        fail_usage("--chunk %llu: O_DIRECT needs a multiple of %llu", static_cast<unsigned long long>(chunk),
                   static_cast<unsigned long long>(kPageSize));

    const int fd = open_for_read(path, O_DIRECT);
    const uint64_t size = regular_file_size(fd, path);
    if (size == 0 || size % chunk != 0 || size / chunk > kMaxReads)
        fail("%s: its size (%llu) must be a non-zero multiple of --chunk (%llu), at most %llu chunks", path,
             static_cast<unsigned long long>(size), static_cast<unsigned long long>(chunk),
             static_cast<unsigned long long>(kMaxReads));
    const uint64_t n = size / chunk;

    uint8_t* buf = alloc_aligned(size);
    aio_context_t ctx = 0;
    if (sc::io_setup(static_cast<unsigned>(n), &ctx) != 0)
        fail_errno(errno, "io_setup(%llu)", static_cast<unsigned long long>(n));

    std::vector<iocb> cbs(n);
    std::vector<iocb*> order(n);
    for (uint64_t i = 0; i < n; i++) {
        const uint64_t offset = (n - 1 - i) * chunk;  // last chunk first
        std::memset(&cbs[i], 0, sizeof cbs[i]);
        cbs[i].aio_fildes = static_cast<uint32_t>(fd);
        cbs[i].aio_lio_opcode = IOCB_CMD_PREAD;
        cbs[i].aio_buf = reinterpret_cast<uint64_t>(buf + offset);
        cbs[i].aio_nbytes = chunk;
        cbs[i].aio_offset = static_cast<int64_t>(offset);
        order[i] = &cbs[i];
    }
    const int submitted = sc::io_submit(ctx, static_cast<long>(n), order.data());
    if (submitted < 0)
        fail_errno(errno, "io_submit of %llu reads of %s", static_cast<unsigned long long>(n), path);
    if (static_cast<uint64_t>(submitted) != n)
        fail("io_submit took %d of %llu reads of %s", submitted, static_cast<unsigned long long>(n), path);

    std::vector<io_event> events(n);
    for (uint64_t done = 0; done < n;) {
        const int got = sc::io_getevents(ctx, 1, static_cast<long>(n - done), events.data());
        if (got < 0) {
            if (errno == EINTR) continue;
            fail_errno(errno, "io_getevents on reads of %s", path);
        }
        for (int i = 0; i < got; i++)
            if (events[i].res != static_cast<int64_t>(chunk))
                fail("a %llu-byte read of %s returned %lld", static_cast<unsigned long long>(chunk), path,
                     static_cast<long long>(events[i].res));
        done += static_cast<uint64_t>(got);
    }
    if (sc::io_destroy(ctx) != 0) fail_errno(errno, "io_destroy");
    if (sc::close(fd) != 0) fail_errno(errno, "cannot close %s", path);
    std::free(buf);
    return kExitOk;
}

// aio: openat(O_RDONLY or O_RDWR [|O_DIRECT]), fstat, io_setup(D), then
// S/C requests of C bytes in file order, D per io_submit, each batch reaped
// whole by io_getevents before the next; io_destroy, close.
int run_aio(int argc, char** argv) {
    const Args args({{"file", true}, {"op", true}, {"chunk", true}, {"depth", true}, {"direct", false}}, argc,
                    argv);
    const char* path = args.text("file");
    const std::string_view op = args.text_or("op", "read");
    const uint64_t chunk = args.number_or("chunk", 4096, 1, uint64_t{1} << 26);
    const uint64_t depth = args.number_or("depth", 8, 1, kMaxReads);
    const bool direct = args.flag("direct");
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

    uint8_t* buf = alloc_aligned(depth * chunk);
    std::memset(buf, 0x5a, depth * chunk);
    aio_context_t ctx = 0;
    if (sc::io_setup(static_cast<unsigned>(depth), &ctx) != 0)
        fail_errno(errno, "io_setup(%llu)", static_cast<unsigned long long>(depth));
    std::vector<iocb> cbs(depth);
    std::vector<iocb*> ptrs(depth);
    std::vector<io_event> events(depth);
    for (uint64_t next = 0; next < n;) {
        const uint64_t batch = n - next < depth ? n - next : depth;
        for (uint64_t i = 0; i < batch; i++) {
            std::memset(&cbs[i], 0, sizeof cbs[i]);
            cbs[i].aio_data = next + i;
            cbs[i].aio_fildes = static_cast<uint32_t>(fd);
            cbs[i].aio_lio_opcode = write ? IOCB_CMD_PWRITE : IOCB_CMD_PREAD;
            cbs[i].aio_buf = reinterpret_cast<uint64_t>(buf + i * chunk);
            cbs[i].aio_nbytes = chunk;
            cbs[i].aio_offset = static_cast<int64_t>((next + i) * chunk);
            ptrs[i] = &cbs[i];
        }
        const int submitted = sc::io_submit(ctx, static_cast<long>(batch), ptrs.data());
        if (submitted < 0)
            fail_errno(errno, "io_submit of %llu requests on %s", static_cast<unsigned long long>(batch),
                       path);
        if (static_cast<uint64_t>(submitted) != batch)
            fail("io_submit took %d of %llu requests on %s", submitted,
                 static_cast<unsigned long long>(batch), path);
        for (uint64_t done = 0; done < batch;) {
            const int got = sc::io_getevents(ctx, static_cast<long>(batch - done),
                                             static_cast<long>(batch - done), events.data());
            if (got < 0) {
                if (errno == EINTR) continue;
                fail_errno(errno, "io_getevents on %s", path);
            }
            for (int i = 0; i < got; i++)
                if (events[i].res != static_cast<int64_t>(chunk))
                    fail("a %llu-byte AIO %.*s of %s returned %lld", static_cast<unsigned long long>(chunk),
                         static_cast<int>(op.size()), op.data(), path, static_cast<long long>(events[i].res));
            done += static_cast<uint64_t>(got);
        }
        next += batch;
    }
    if (sc::io_destroy(ctx) != 0) fail_errno(errno, "io_destroy");
    if (sc::close(fd) != 0) fail_errno(errno, "cannot close %s", path);
    std::free(buf);
    return kExitOk;
}

}  // namespace wl
