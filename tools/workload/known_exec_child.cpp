// known-exec-child: the part of `known` that runs after an exec. main forks and
// execs /proc/self/exe with this mode; a tracer that follows only forks, or
// loses the process at exec, misses these calls.
//
// A whole-file sequential reader (8 KiB reads until EOF), one failing write on
// its read-only fd, an fstat, a newfstatat and one failing access: the
// exec-child's rows of known.h.
#include "args.h"
#include "known_calls.h"
#include "modes.h"
#include "sys.h"
#include "util.h"

#include <cerrno>

namespace wl {

int run_known_exec_child(int argc, char** argv) {
    using namespace known;
    const Args args({{"dir", true}}, argc, argv);
    const char* dir = args.text("dir");
    const std::string data = path_in(dir, kDataName);
    const std::string missing = path_in(dir, kMissingName);
    const std::vector<uint8_t> image = data_image();
    alignas(4096) static uint8_t buf[8192];

    const int fd = sc::openat(AT_FDCWD, data.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail_errno(errno, "openat(%s) failed", data.c_str());
    struct stat st;
    expect_ret(sc::fstat(fd, &st), 0, "fstat(known.dat)");
    if (static_cast<uint64_t>(st.st_size) != kDataSize)
        fail("known.dat has %lld bytes", static_cast<long long>(st.st_size));

    for (uint64_t off = 0; off < kDataSize; off += sizeof buf) {  // 16 reads of 8192
        expect_ret(sc::read(fd, buf, sizeof buf), sizeof buf, "read(known.dat, 8192)");
        expect_content(image, buf, sizeof buf, off, "read(8192)");
    }
    expect_ret(sc::read(fd, buf, sizeof buf), 0, "read(known.dat, 8192 @ EOF)");
    expect_errno(sc::write(fd, buf, 10), EBADF, "write(known.dat opened O_RDONLY, 10)");
    expect_ret(sc::close(fd), 0, "close(known.dat)");

    expect_ret(sc::newfstatat(AT_FDCWD, data.c_str(), &st, AT_SYMLINK_NOFOLLOW), 0, "newfstatat(known.dat)");
    expect_errno(sc::access(missing.c_str(), F_OK), ENOENT, "access(does-not-exist, F_OK)");
    return kExitOk;
}

}  // namespace wl
