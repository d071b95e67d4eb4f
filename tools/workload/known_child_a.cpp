// known, child-a: forked by main (no exec). Pipe traffic with main first, then
// every read-class call and every lseek whence on known.dat, including reads
// whose sizes fall in different log2 buckets, a short read at the end of the
// file, a read at end of file, one failing read and one failing lseek.
//
// What these calls add up to is child-a's rows of known.h.
#include "known_calls.h"
#include "sys.h"
#include "util.h"

#include <unistd.h>

#include <cerrno>

namespace wl::known {

namespace {

alignas(4096) uint8_t g_buf[65536];

void close_or_fail(int fd, const char* what) {
    if (sc::close(fd) != 0) fail_errno(errno, "child-a: cannot close %s", what);
}

void answer_main(int from_main, int to_main) {
    for (uint64_t i = 0; i < kPingPongRounds; ++i) {
        uint64_t msg = 0;
        if (!read_exact(from_main, &msg, sizeof msg, "the pipe from main"))
            fail("child-a: main closed its pipe after %llu rounds", static_cast<unsigned long long>(i));
        if (msg != i)
            fail("child-a: round %llu carried %llu", static_cast<unsigned long long>(i),
                 static_cast<unsigned long long>(msg));
        const uint64_t reply = ~msg;
        write_all(to_main, &reply, sizeof reply, "the pipe to main");
    }
}

// pread64 at chosen offsets, then sequential reads through the file position.
void read_data_file(const std::string& path, const std::vector<uint8_t>& image) {
    uint8_t* b = g_buf;
    const int fd = sc::openat(AT_FDCWD, path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail_errno(errno, "child-a: openat(%s) failed", path.c_str());

    // pread64: 3 x 512, 2 x 4096, 1 x 65536, then a short read (100 asked, 40
    // left before EOF) and a read at EOF (4096 asked, 0 returned).
    for (const off_t off : {0, 512, 1024}) {
        expect_ret(sc::pread64(fd, b, 512, off), 512, "pread64(known.dat, 512)");
        expect_content(image, b, 512, static_cast<uint64_t>(off), "pread64(512)");
    }
    for (const off_t off : {4096, 8192}) {
        expect_ret(sc::pread64(fd, b, 4096, off), 4096, "pread64(known.dat, 4096)");
        expect_content(image, b, 4096, static_cast<uint64_t>(off), "pread64(4096)");
    }
    expect_ret(sc::pread64(fd, b, 65536, 65536), 65536, "pread64(known.dat, 65536)");
    expect_content(image, b, 65536, 65536, "pread64(65536)");
    expect_ret(sc::pread64(fd, b, 100, 131032), 40, "pread64(known.dat, 100 @ 131032)");
    expect_content(image, b, 40, 131032, "pread64(100 @ 131032)");
    expect_ret(sc::pread64(fd, b, 4096, 131072), 0, "pread64(known.dat, 4096 @ EOF)");

    // read x 3 from position 0 (pread64 does not move it): position 3000.
    for (uint64_t i = 0; i < 3; ++i) {
        expect_ret(sc::read(fd, b, 1000), 1000, "read(known.dat, 1000)");
        expect_content(image, b, 1000, i * 1000, "read(1000)");
    }
    // readv 100 + 200 + 724 = 1024 at position 3000: position 4024.
    const struct iovec rv[3] = {{b, 100}, {b + 100, 200}, {b + 300, 724}};
    expect_ret(sc::readv(fd, rv, 3), 1024, "readv(known.dat, 100+200+724)");
    expect_content(image, b, 1024, 3000, "readv");

    // lseek with each whence, one invalid (negative) target.
    expect_ret(sc::lseek(fd, 0, SEEK_SET), 0, "lseek(known.dat, 0, SEEK_SET)");
    expect_ret(sc::lseek(fd, 8192, SEEK_CUR), 8192, "lseek(known.dat, 8192, SEEK_CUR)");
    expect_ret(sc::lseek(fd, 0, SEEK_END), 131072, "lseek(known.dat, 0, SEEK_END)");
    expect_errno(sc::lseek(fd, -1, SEEK_SET), EINVAL, "lseek(known.dat, -1, SEEK_SET)");
    expect_ret(sc::lseek(fd, 16384, SEEK_SET), 16384, "lseek(known.dat, 16384, SEEK_SET)");

    // read 16384 at position 16384: position 32768.
    expect_ret(sc::read(fd, b, 16384), 16384, "read(known.dat, 16384)");
    expect_content(image, b, 16384, 16384, "read(16384)");
    // preadv 8192 + 8192 at 32768 (position unchanged).
    const struct iovec pv[2] = {{b, 8192}, {b + 8192, 8192}};
    expect_ret(sc::preadv(fd, pv, 2, 32768), 16384, "preadv(known.dat, 8192+8192 @ 32768)");
    expect_content(image, b, 16384, 32768, "preadv");
    // preadv2 2048 at offset 0, then 4096 at offset -1 (= the position, 32768).
    const struct iovec p2a[1] = {{b, 2048}};
    expect_ret(sc::preadv2(fd, p2a, 1, 0, 0), 2048, "preadv2(known.dat, 2048 @ 0)");
    expect_content(image, b, 2048, 0, "preadv2(@ 0)");
    const struct iovec p2b[1] = {{b, 4096}};
    expect_ret(sc::preadv2(fd, p2b, 1, -1, 0), 4096, "preadv2(known.dat, 4096 @ -1)");
    expect_content(image, b, 4096, 32768, "preadv2(@ -1)");

    expect_ret(sc::close(fd), 0, "close(known.dat)");
}

// A read on a regular file that fails: the fd is write-only, so EBADF.
void failing_read(const std::string& path) {
    const int fd = sc::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) fail_errno(errno, "child-a: open(%s, O_WRONLY) failed", path.c_str());
    expect_errno(sc::read(fd, g_buf, 4096), EBADF, "read(known.dat opened O_WRONLY, 4096)");
    expect_ret(sc::close(fd), 0, "close(known.dat)");
}

}  // namespace

void child_a_main(const char* dir, const std::vector<uint8_t>& image, ChildAPipes pipes) {
    close_or_fail(pipes.main_keeps_w, "a pipe");
    close_or_fail(pipes.main_keeps_r, "a pipe");
    answer_main(pipes.from_main, pipes.to_main);
    close_or_fail(pipes.from_main, "a pipe");
    close_or_fail(pipes.to_main, "a pipe");

    const std::string path = path_in(dir, kDataName);
    read_data_file(path, image);
    failing_read(path);
    _exit(kExitOk);
}

}  // namespace wl::known
