#!/usr/bin/env python3
"""Edge cases of iolens's counting rules, for the outside check
(tests/privileged/strace_check_test.cpp, tools/workload/strace_compare.py):
vectored calls (20 iovecs: iolens sums the first 16, as strace -s 16 prints
them), sendfile, copy_file_range and splice (regular and pipe sides), fsync
of a directory and of a pipe, lseek, read and write of a directory, reads of
a pipe, a bad fd, /dev/null and a memfd, a read past a truncation, failed
stat and close, mmap of a file.

    strace_edges.py DIR     (DIR must exist; it gets files a and b)
"""
import ctypes
import mmap
import os
import sys


def failing(call, *args):
    try:
        call(*args)
    except OSError:
        pass


def regular(d):
    fd = os.open(d + "/a", os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    os.write(fd, b"x" * 10000)
    os.pwritev(fd, [b"a" * 100, b"b" * 200], 50)
    os.preadv(fd, [bytearray(300), bytearray(5000)], 0)
    os.readv(fd, [bytearray(10)] * 20)
    os.lseek(fd, 0, 0)
    os.read(fd, 20000)
    os.fsync(fd)
    os.fdatasync(fd)
    libc = ctypes.CDLL("libc.so.6", use_errno=True)  # os has no sync_file_range
    libc.sync_file_range(fd, ctypes.c_int64(0), ctypes.c_int64(0), 2)  # SYNC_FILE_RANGE_WRITE
    m = mmap.mmap(fd, 8192)
    m[0]
    m.close()
    failing(os.pread, fd, 10, -1)
    return fd


def directory(d):
    dfd = os.open(d, os.O_RDONLY)
    os.fsync(dfd)
    os.lseek(dfd, 0, 0)
    os.listdir(dfd)
    failing(os.read, dfd, 10)
    failing(os.write, dfd, b"x")
    os.close(dfd)


def copies(d, fd):
    r, w = os.pipe()
    os.write(w, b"hi")
    os.read(r, 2)
    failing(os.fsync, r)
    out = os.open(d + "/b", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.sendfile(out, fd, 0, 5000)
    os.copy_file_range(fd, out, 3000, 0, 6000)
    os.splice(fd, w, 100, offset_src=0)
    os.splice(r, out, 100)
    os.close(out)


def others(d):
    failing(os.read, 999, 1)
    mfd = os.memfd_create("m")
    os.write(mfd, b"z" * 100)
    os.pread(mfd, 100, 0)
    dn = os.open("/dev/null", os.O_RDWR)
    os.write(dn, b"x")
    os.read(dn, 1)
    os.stat(d)
    failing(os.stat, d + "/nope")
    os.access(d, os.R_OK)


def main():
    d = sys.argv[1]
    fd = regular(d)
    directory(d)
    copies(d, fd)
    os.truncate(d + "/a", 0)
    os.read(fd, 10)
    os.close(fd)
    failing(os.close, fd)
    others(d)


if __name__ == "__main__":
    main()
