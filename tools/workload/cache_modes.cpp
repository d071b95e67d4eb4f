// make-file, evict and residency: the setup and inspection steps of the
// page-cache and block-layer tests (docs/workload.md, "Page cache and block
// layer"). None of them is meant to be traced for exact counts, but each still
// makes only the syscalls listed there.
//
// make-file  openat(O_WRONLY|O_CREAT|O_TRUNC), ceil(S / 1 MiB) write, fsync,
//            close: F holds S bytes of deterministic content, cached and clean.
// evict      openat, fstat, mmap, [mincore], fsync, fadvise64(DONTNEED),
//            mincore, munmap, close: F's pages leave the page cache (only F's),
//            and the run fails unless mincore agrees.
// residency  openat, fstat, mmap, mincore, munmap, close: prints how many of
//            F's pages are cached.
#include "args.h"
#include "dataset.h"
#include "modes.h"
#include "page_cache.h"
#include "sys.h"
#include "util.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace wl {

namespace {

// The hint added when mincore may be reporting every page as resident because
// the caller neither owns the file nor may write it (page_cache.h). Only
// computed on the failure path: geteuid is no file syscall, but it is one more
// syscall a successful run does not make.
const char* mincore_hint(int fd) {
    struct stat st;
    if (sc::fstat(fd, &st) != 0) return "";
    const uid_t me = geteuid();
    if (me == 0 || st.st_uid == me) return "";
    return " (note: mincore reports every page resident to a caller that neither owns the file nor may write "
           "it;"
           " run as its owner or as root)";
}

}  // namespace

int run_make_file(int argc, char** argv) {
    const Args args({{"file", true}, {"size", true}, {"seed", true}}, argc, argv);
    const char* path = args.text("file");
    const uint64_t size = args.number("size", 0, uint64_t{1} << 40);
    const uint64_t seed = args.number_or("seed", 1, 0, UINT64_MAX);

    const int fd = sc::openat(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) fail_errno(errno, "cannot create %s", path);
    write_content(fd, path, size, kCreateChunk, file_key(seed));
    if (sc::fsync(fd) != 0) fail_errno(errno, "cannot fsync %s", path);
    if (sc::close(fd) != 0) fail_errno(errno, "cannot close %s", path);
    return kExitOk;
}

int run_evict(int argc, char** argv) {
    const Args args({{"file", true}, {"report", false}}, argc, argv);
    const char* path = args.text("file");
    const bool report = args.flag("report");

    const int fd = open_for_read(path);
    const uint64_t size = regular_file_size(fd, path);
    const uint64_t total = page_count(size);
    // Mapped once, before the advice: the mapping only serves mincore and is
    // never touched, so it holds no page (no page table entry) that could keep
    // DONTNEED from dropping it. An empty file is not mapped (mmap refuses a
    // zero length); it has no page to count.
    const uint8_t* map = size > 0 ? map_file(fd, size, path) : nullptr;
    const uint64_t before = report && map ? resident_pages(map, size, path) : 0;

    // Dirty pages cannot be dropped: write them back (and wait) first. Then
    // drop F's clean pages; other files' pages stay cached.
    if (sc::fsync(fd) != 0) fail_errno(errno, "cannot fsync %s", path);
    advise(fd, 0, 0, POSIX_FADV_DONTNEED, "POSIX_FADV_DONTNEED", path);

    const uint64_t after = map ? resident_pages(map, size, path) : 0;
    // More than 1% still cached: someone maps (and has touched) or locks F, or
    // mincore is not telling the truth (see mincore_hint).
    if (after * 100 > total)
        fail(
            "%s is not cold: %llu of %llu pages still resident after fsync + fadvise(DONTNEED) (more than "
            "1%%): "
            "is it mapped or locked by another process?%s",
            path, static_cast<unsigned long long>(after), static_cast<unsigned long long>(total),
            mincore_hint(fd));
    if (map) unmap_file(map, size, path);
    if (sc::close(fd) != 0) fail_errno(errno, "cannot close %s", path);

    if (report)
        print_out("before_resident_pages=%llu after_resident_pages=%llu total_pages=%llu\n",
                  static_cast<unsigned long long>(before), static_cast<unsigned long long>(after),
                  static_cast<unsigned long long>(total));
    return kExitOk;
}

int run_residency(int argc, char** argv) {
    const Args args({{"file", true}}, argc, argv);
    const char* path = args.text("file");

    const int fd = open_for_read(path);
    const uint64_t size = regular_file_size(fd, path);
    uint64_t resident = 0;
    if (size > 0) {
        const uint8_t* map = map_file(fd, size, path);
        resident = resident_pages(map, size, path);
        unmap_file(map, size, path);
    }
    if (sc::close(fd) != 0) fail_errno(errno, "cannot close %s", path);
    print_out("resident_pages=%llu total_pages=%llu\n", static_cast<unsigned long long>(resident),
              static_cast<unsigned long long>(page_count(size)));
    return kExitOk;
}

}  // namespace wl
