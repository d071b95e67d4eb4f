// seq-read, mmap-scan, random-read and write-file: the traced workloads of the
// page-cache and block-layer tests. docs/workload.md ("Page cache and block
// layer") lists every call; each mode makes exactly those file syscalls and
// fails the run (exit 1) rather than make a different number of them.
#include "args.h"
#include "dataset.h"
#include "modes.h"
#include "page_cache.h"
#include "rng.h"
#include "sys.h"
#include "util.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace wl {

namespace {

// The sum keeps the compiler from dropping mmap-scan's loads even if it could
// prove the volatile pointer pointless.
volatile uint64_t g_scan_sum;

}  // namespace

// openat(O_RDONLY [|O_DIRECT]), read(C) until it returns 0, close.
int run_seq_read(int argc, char** argv) {
    const Args args({{"file", true}, {"chunk", true}, {"direct", false}}, argc, argv);
    const char* path = args.text("file");
    const uint64_t chunk = args.number_or("chunk", 131072, 1, kMaxIo);
    const bool direct = args.flag("direct");
    // An O_DIRECT chunk must be a multiple of the page size (and so of any
    // logical block size up to 4096).
    if (direct && chunk % kPageSize != 0)
        fail_usage("--chunk %llu: with --direct the chunk must be a multiple of %llu",
                   static_cast<unsigned long long>(chunk), static_cast<unsigned long long>(kPageSize));

    // Page-aligned whether or not O_DIRECT needs it.
    uint8_t* buf = alloc_aligned(chunk);
    const int fd = open_for_read(path, direct ? O_DIRECT : 0);
    uint64_t offset = 0;
    bool short_seen = false;
    for (;;) {
        const ssize_t n = sc::read(fd, buf, chunk);
        if (n < 0)
            fail_errno(errno, "read(%s) at offset %llu failed", path,
                       static_cast<unsigned long long>(offset));
        if (n == 0) break;
        // Only the last data read may be short; anything else would break the
        // ceil(size / C) + 1 count the documentation promises.
        if (short_seen)
            fail("read(%s) returned data after a short read at offset %llu (did the file grow?)", path,
                 static_cast<unsigned long long>(offset));
        short_seen = static_cast<uint64_t>(n) < chunk;
        offset += static_cast<uint64_t>(n);
    }
    if (sc::close(fd) != 0) fail_errno(errno, "cannot close %s", path);
    std::free(buf);
    return kExitOk;
}

// openat, fstat, mmap(whole file, PROT_READ, MAP_SHARED), one load per page in
// order, munmap, close.
int run_mmap_scan(int argc, char** argv) {
    const Args args({{"file", true}}, argc, argv);
    const char* path = args.text("file");

    const int fd = open_for_read(path);
    const uint64_t size = regular_file_size(fd, path);
    if (size == 0) fail("%s is empty: there is nothing to map", path);
    const uint8_t* map = map_file(fd, size, path);
    const volatile uint8_t* bytes = map;
    uint64_t sum = 0;
    for (uint64_t off = 0; off < size; off += kPageSize) sum += bytes[off];
    g_scan_sum = sum;
    unmap_file(map, size, path);
    if (sc::close(fd) != 0) fail_errno(errno, "cannot close %s", path);
    return kExitOk;
}

// openat, fstat, [fadvise64(RANDOM)], N pread64(B) at distinct pseudo-random
// B-aligned offsets, [fadvise64(DONTNEED)], close.
int run_random_read(int argc, char** argv) {
    const Args args({{"file", true},
                     {"count", true},
                     {"size", true},
                     {"seed", true},
                     {"advice", true},
                     {"evict-after", false}},
                    argc, argv);
    const char* path = args.text("file");
    const uint64_t count = args.number("count", 0, uint64_t{1} << 40);
    const uint64_t size = args.number_or("size", 4096, 1, kMaxIo);
    const uint64_t seed = args.number_or("seed", 1, 0, UINT64_MAX);
    const char* advice = args.text_or("advice", "normal");
    if (std::strcmp(advice, "normal") != 0 && std::strcmp(advice, "random") != 0)
        fail_usage("--advice: '%s' is neither 'normal' nor 'random'", advice);
    const bool advice_random = std::strcmp(advice, "random") == 0;
    const bool evict_after = args.flag("evict-after");

    uint8_t* buf = alloc_aligned(size);
    const int fd = open_for_read(path);
    const uint64_t file_size = size_for_reads(fd, path, size);
    // Whole B-byte slots only: every read returns B bytes, none reaches past
    // the end of the file (a partial last slot is never read).
    const uint64_t slots = file_size / size;
    const SlotPermutation perm(slots, seed);

    if (advice_random) advise(fd, 0, 0, POSIX_FADV_RANDOM, "POSIX_FADV_RANDOM", path);
    for (uint64_t i = 0; i < count; ++i) pread_exact(fd, buf, size, perm.slot(i % slots) * size, path);
    if (evict_after) advise(fd, 0, 0, POSIX_FADV_DONTNEED, "POSIX_FADV_DONTNEED", path);
    if (sc::close(fd) != 0) fail_errno(errno, "cannot close %s", path);
    std::free(buf);
    return kExitOk;
}

// openat(O_WRONLY|O_CREAT|O_TRUNC), ceil(S / C) write, [fsync], close. With
// --stride T: S / C pwrite64 of C bytes at offsets 0, T, 2T, ... (a sparse
// file: with T > C no two chunks touch). With --evict-after: fdatasync,
// fadvise64(DONTNEED) before the close (one burst of evictions, one per
// chunk when they do not touch).
int run_write_file(int argc, char** argv) {
    const Args args({{"file", true},
                     {"size", true},
                     {"chunk", true},
                     {"stride", true},
                     {"fsync", false},
                     {"evict-after", false}},
                    argc, argv);
    const char* path = args.text("file");
    const uint64_t size = args.number("size", 0, uint64_t{1} << 40);
    const uint64_t chunk = args.number_or("chunk", uint64_t{1} << 20, 1, kMaxIo);
    const uint64_t stride = args.number_or("stride", 0, 0, uint64_t{1} << 40);
    const bool sync = args.flag("fsync");
    const bool evict_after = args.flag("evict-after");
    if (stride != 0 && stride < chunk)
        fail_usage("--stride %llu is less than --chunk", (unsigned long long)stride);

    const int fd = sc::openat(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) fail_errno(errno, "cannot create %s", path);
    if (stride == 0) {
        write_content(fd, path, size, static_cast<size_t>(chunk), file_key(1));
    } else {
        uint8_t* buf = alloc_aligned(chunk);
        std::memset(buf, 's', chunk);
        for (uint64_t i = 0; i < size / chunk; ++i)
            if (sc::pwrite64(fd, buf, chunk, static_cast<off_t>(i * stride)) != static_cast<ssize_t>(chunk))
                fail_errno(errno, "cannot write %s", path);
        std::free(buf);
    }
    if (sync && sc::fsync(fd) != 0) fail_errno(errno, "cannot fsync %s", path);
    if (evict_after) {
        if (sc::fdatasync(fd) != 0) fail_errno(errno, "cannot fdatasync %s", path);
        advise(fd, 0, 0, POSIX_FADV_DONTNEED, "POSIX_FADV_DONTNEED", path);
    }
    if (sc::close(fd) != 0) fail_errno(errno, "cannot close %s", path);
    return kExitOk;
}

// Over N files of a make-dataset dataset: openat(O_RDONLY), one read(B) at
// offset 0, close -- or, with --evict, openat, fdatasync, fadvise64(DONTNEED),
// close (the setup step that makes them cold). A header scan: a read at page
// 0 starts the kernel's initial readahead (4 pages for a 1-page read), which
// the reader never uses.
int run_head_read(int argc, char** argv) {
    const Args args({{"dir", true}, {"files", true}, {"size", true}, {"evict", false}}, argc, argv);
    const char* dir = args.text("dir");
    const uint64_t files = args.number("files", 1, uint64_t{1} << 32);
    const uint64_t size = args.number_or("size", 4096, 1, kMaxIo);
    const bool evict = args.flag("evict");
    uint8_t* buf = alloc_aligned(size);
    for (uint64_t i = 0; i < files; ++i) {
        const std::string path = sample_path(dir, i);
        const int fd = open_for_read(path.c_str());
        if (evict) {
            if (sc::fdatasync(fd) != 0) fail_errno(errno, "cannot fdatasync %s", path.c_str());
            advise(fd, 0, 0, POSIX_FADV_DONTNEED, "POSIX_FADV_DONTNEED", path.c_str());
        } else if (sc::read(fd, buf, size) < 0) {
            fail_errno(errno, "cannot read %s", path.c_str());
        }
        if (sc::close(fd) != 0) fail_errno(errno, "cannot close %s", path.c_str());
    }
    std::free(buf);
    return kExitOk;
}

}  // namespace wl
