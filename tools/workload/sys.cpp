#include "sys.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace wl::sc {

namespace {

// syscall(2) takes variadic longs; the casts keep pointer and size arguments
// register-sized and signed offsets sign-extended.
template <typename... A>
long call(long nr, A... args) {
    return ::syscall(nr, static_cast<long>(args)...);
}

long p(const void* ptr) { return reinterpret_cast<long>(ptr); }

}  // namespace

int open(const char* path, int flags, mode_t mode) {
    return static_cast<int>(call(SYS_open, p(path), flags, mode));
}

int creat(const char* path, mode_t mode) { return static_cast<int>(call(SYS_creat, p(path), mode)); }

int openat(int dirfd, const char* path, int flags, mode_t mode) {
    return static_cast<int>(call(SYS_openat, dirfd, p(path), flags, mode));
}

int openat2(int dirfd, const char* path, const struct open_how& how) {
    return static_cast<int>(call(SYS_openat2, dirfd, p(path), p(&how), sizeof how));
}

int close(int fd) { return static_cast<int>(call(SYS_close, fd)); }

ssize_t read(int fd, void* buf, size_t count) { return call(SYS_read, fd, p(buf), count); }

ssize_t pread64(int fd, void* buf, size_t count, off_t offset) {
    return call(SYS_pread64, fd, p(buf), count, offset);
}

ssize_t readv(int fd, const struct iovec* iov, int iovcnt) { return call(SYS_readv, fd, p(iov), iovcnt); }

// The vectored positional calls take the offset as (low, high) halves; on a
// 64-bit kernel the whole offset fits in the low half and the high half is 0.
// An offset of -1 (preadv2/pwritev2) means "use and advance the file position".
ssize_t preadv(int fd, const struct iovec* iov, int iovcnt, off_t offset) {
    return call(SYS_preadv, fd, p(iov), iovcnt, offset, 0L);
}

ssize_t preadv2(int fd, const struct iovec* iov, int iovcnt, off_t offset, int flags) {
    return call(SYS_preadv2, fd, p(iov), iovcnt, offset, 0L, flags);
}

ssize_t write(int fd, const void* buf, size_t count) { return call(SYS_write, fd, p(buf), count); }

ssize_t pwrite64(int fd, const void* buf, size_t count, off_t offset) {
    return call(SYS_pwrite64, fd, p(buf), count, offset);
}

ssize_t writev(int fd, const struct iovec* iov, int iovcnt) { return call(SYS_writev, fd, p(iov), iovcnt); }

ssize_t pwritev(int fd, const struct iovec* iov, int iovcnt, off_t offset) {
    return call(SYS_pwritev, fd, p(iov), iovcnt, offset, 0L);
}

ssize_t pwritev2(int fd, const struct iovec* iov, int iovcnt, off_t offset, int flags) {
    return call(SYS_pwritev2, fd, p(iov), iovcnt, offset, 0L, flags);
}

// struct stat in glibc's x86_64 ABI is the kernel's struct stat, so the raw
// stat family can fill it directly.
int stat(const char* path, struct ::stat* st) { return static_cast<int>(call(SYS_stat, p(path), p(st))); }

int lstat(const char* path, struct ::stat* st) { return static_cast<int>(call(SYS_lstat, p(path), p(st))); }

int fstat(int fd, struct ::stat* st) { return static_cast<int>(call(SYS_fstat, fd, p(st))); }

int newfstatat(int dirfd, const char* path, struct ::stat* st, int flags) {
    return static_cast<int>(call(SYS_newfstatat, dirfd, p(path), p(st), flags));
}

int statx(int dirfd, const char* path, int flags, unsigned mask, struct ::statx* stx) {
    return static_cast<int>(call(SYS_statx, dirfd, p(path), flags, mask, p(stx)));
}

int access(const char* path, int mode) { return static_cast<int>(call(SYS_access, p(path), mode)); }

int faccessat(int dirfd, const char* path, int mode) {
    return static_cast<int>(call(SYS_faccessat, dirfd, p(path), mode));
}

int faccessat2(int dirfd, const char* path, int mode, int flags) {
    return static_cast<int>(call(SYS_faccessat2, dirfd, p(path), mode, flags));
}

off_t lseek(int fd, off_t offset, int whence) { return call(SYS_lseek, fd, offset, whence); }

void* mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset) {
    const long r = call(SYS_mmap, p(addr), length, prot, flags, fd, offset);
    return r == -1 ? MAP_FAILED : reinterpret_cast<void*>(r);
}

long getdents64(int fd, void* buf, size_t count) { return call(SYS_getdents64, fd, p(buf), count); }

int fsync(int fd) { return static_cast<int>(call(SYS_fsync, fd)); }

int fdatasync(int fd) { return static_cast<int>(call(SYS_fdatasync, fd)); }

int sync_file_range(int fd, off_t offset, off_t nbytes, unsigned flags) {
    return static_cast<int>(call(SYS_sync_file_range, fd, offset, nbytes, flags));
}

// x86_64 passes all four arguments in registers (no 32-bit offset halves).
int fadvise64(int fd, off_t offset, off_t len, int advice) {
    return static_cast<int>(call(SYS_fadvise64, fd, offset, len, advice));
}

int mincore(void* addr, size_t length, unsigned char* vec) {
    return static_cast<int>(call(SYS_mincore, p(addr), length, p(vec)));
}

int munmap(void* addr, size_t length) { return static_cast<int>(call(SYS_munmap, p(addr), length)); }

int io_setup(unsigned nr_events, aio_context_t* ctx) {
    return static_cast<int>(call(SYS_io_setup, nr_events, p(ctx)));
}

int io_destroy(aio_context_t ctx) { return static_cast<int>(call(SYS_io_destroy, ctx)); }

ssize_t sendfile(int out_fd, int in_fd, off_t* offset, size_t count) {
    return call(SYS_sendfile, out_fd, in_fd, p(offset), count);
}

ssize_t copy_file_range(int fd_in, off_t* off_in, int fd_out, off_t* off_out, size_t len, unsigned flags) {
    return call(SYS_copy_file_range, fd_in, p(off_in), fd_out, p(off_out), len, flags);
}

ssize_t splice(int fd_in, off_t* off_in, int fd_out, off_t* off_out, size_t len, unsigned flags) {
    return call(SYS_splice, fd_in, p(off_in), fd_out, p(off_out), len, flags);
}

int pipe2(int fds[2], int flags) { return static_cast<int>(call(SYS_pipe2, p(fds), flags)); }

int io_submit(aio_context_t ctx, long nr, struct iocb** iocbs) {
    return static_cast<int>(call(SYS_io_submit, ctx, nr, p(iocbs)));
}

int io_getevents(aio_context_t ctx, long min_nr, long nr, struct io_event* events) {
    return static_cast<int>(call(SYS_io_getevents, ctx, min_nr, nr, p(events), 0L));
}

}  // namespace wl::sc
