// One wrapper per file syscall, each issuing exactly the syscall it is named
// after, through syscall(2).
//
// The privileged tests count syscalls by number, and libc's wrappers do not
// promise which syscall they make: glibc >= 2.33 implements stat() and fstat()
// with newfstatat, open() with openat, and access() may become faccessat on
// some builds. Going through syscall(2) removes the guesswork, and the names
// below say exactly what the tracer will see.
//
// All of them follow the libc convention: -1 (or MAP_FAILED) with errno set
// on failure.
#pragma once

#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <cstddef>
#include <cstdint>

// The legacy path syscalls (open, creat, stat, lstat, access) exist only on
// some architectures; the `known` scenario exercises every one of them.
#if !defined(__x86_64__)
#error \
    "iolens-workload: the exact-count scenarios are defined for x86_64 (they use open, creat, stat, lstat and access)"
#endif

namespace wl::sc {

// open class
int open(const char* path, int flags, mode_t mode = 0);
int creat(const char* path, mode_t mode);
int openat(int dirfd, const char* path, int flags, mode_t mode = 0);
int openat2(int dirfd, const char* path, const struct open_how& how);

// close class
int close(int fd);

// read class
ssize_t read(int fd, void* buf, size_t count);
ssize_t pread64(int fd, void* buf, size_t count, off_t offset);
ssize_t readv(int fd, const struct iovec* iov, int iovcnt);
ssize_t preadv(int fd, const struct iovec* iov, int iovcnt, off_t offset);
ssize_t preadv2(int fd, const struct iovec* iov, int iovcnt, off_t offset, int flags);

// write class
ssize_t write(int fd, const void* buf, size_t count);
ssize_t pwrite64(int fd, const void* buf, size_t count, off_t offset);
ssize_t writev(int fd, const struct iovec* iov, int iovcnt);
ssize_t pwritev(int fd, const struct iovec* iov, int iovcnt, off_t offset);
ssize_t pwritev2(int fd, const struct iovec* iov, int iovcnt, off_t offset, int flags);

// stat class
int stat(const char* path, struct ::stat* st);
int lstat(const char* path, struct ::stat* st);
int fstat(int fd, struct ::stat* st);
int newfstatat(int dirfd, const char* path, struct ::stat* st, int flags);
int statx(int dirfd, const char* path, int flags, unsigned mask, struct ::statx* stx);
int access(const char* path, int mode);
int faccessat(int dirfd, const char* path, int mode);
int faccessat2(int dirfd, const char* path, int mode, int flags);

// seek, mmap, readdir, sync classes
off_t lseek(int fd, off_t offset, int whence);
void* mmap(void* addr, size_t length, int prot, int flags, int fd, off_t offset);
long getdents64(int fd, void* buf, size_t count);
int fsync(int fd);
int fdatasync(int fd);
int sync_file_range(int fd, off_t offset, off_t nbytes, unsigned flags);

// In no iolens class: page-cache advice and residency, and unmapping.
// fadvise64 is the raw syscall behind posix_fadvise(3), but unlike that
// function it follows the convention above (-1 and errno, not an error number).
int fadvise64(int fd, off_t offset, off_t len, int advice);
int mincore(void* addr, size_t length, unsigned char* vec);
int munmap(void* addr, size_t length);

// Copy calls (read and write classes, path "copy"): data moves between two
// fds inside the kernel. off pointers may be null (the file position).
ssize_t sendfile(int out_fd, int in_fd, off_t* offset, size_t count);
ssize_t copy_file_range(int fd_in, off_t* off_in, int fd_out, off_t* off_out, size_t len, unsigned flags);
ssize_t splice(int fd_in, off_t* off_in, int fd_out, off_t* off_out, size_t len, unsigned flags);
// In no iolens class: a pipe for splice.
int pipe2(int fds[2], int flags);

// Linux native AIO (not traced as a class; the block layer sees its reads):
// used to submit many O_DIRECT reads in one call, under one block plug.
int io_setup(unsigned nr_events, aio_context_t* ctx);
int io_destroy(aio_context_t ctx);
int io_submit(aio_context_t ctx, long nr, struct iocb** iocbs);
int io_getevents(aio_context_t ctx, long min_nr, long nr, struct io_event* events);

}  // namespace wl::sc
