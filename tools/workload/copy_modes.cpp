// copy: one file copied into another by copy calls (sendfile, copy_file_range
// or splice through a pipe), the data never passing through user memory.
// iolens counts each call as a read of the source and a write of the
// destination (path "copy"); docs/workload.md lists the calls.
#include "args.h"
#include "modes.h"
#include "page_cache.h"
#include "sys.h"
#include "util.h"

#include <cerrno>
#include <cstring>
#include <string_view>

namespace wl {

// openat(src), fstat(src), openat(dst, O_WRONLY|O_CREAT|O_TRUNC), [pipe2],
// ceil(S/C) copies of C bytes (splice: two calls each, src -> pipe -> dst),
// close(dst), close(src) [, close of both pipe ends].
// --within (copy_file_range): the first half of src onto its second half
// through one descriptor: openat(src, O_RDWR), fstat, ceil(S/2/C) copies of
// C bytes, close: each call a read and a write of the same file and fd.
int run_copy_within(const char* src, uint64_t chunk) {
    const int fd = sc::openat(AT_FDCWD, src, O_RDWR | O_CLOEXEC, 0);
    if (fd < 0) fail_errno(errno, "cannot open %s", src);
    const uint64_t half = regular_file_size(fd, src) / 2;
    off_t in_off = 0, out_off = static_cast<off_t>(half);
    for (uint64_t done = 0; done < half;) {
        const uint64_t want = half - done < chunk ? half - done : chunk;
        const ssize_t n = sc::copy_file_range(fd, &in_off, fd, &out_off, want, 0);
        if (n != static_cast<ssize_t>(want)) fail_errno(errno, "copy_file_range within %s", src);
        done += want;
    }
    if (sc::close(fd) != 0) fail_errno(errno, "cannot close %s", src);
    return kExitOk;
}

int run_copy(int argc, char** argv) {
    const Args args(
        {{"src", true}, {"dst", true}, {"via", true}, {"chunk", true}, {"offsets", false}, {"within", false}},
        argc, argv);
    const char* src = args.text("src");
    if (args.flag("within")) {
        if (std::string_view(args.text("via")) != "copy_file_range")
            fail_usage("--within: only with --via copy_file_range");
        return run_copy_within(src, args.number_or("chunk", 65536, 1, kMaxIo));
    }
    const char* dst = args.text("dst");
    const std::string_view via = args.text("via");
    // A pipe holds 64 KiB by default: splice moves at most that per call.
    const uint64_t chunk = args.number_or("chunk", 65536, 1, via == "splice" ? 65536 : kMaxIo);
    const bool offsets = args.flag("offsets");
    if (via != "sendfile" && via != "copy_file_range" && via != "splice")
        fail_usage("--via %.*s: expected sendfile, copy_file_range or splice", static_cast<int>(via.size()),
                   via.data());

    const int in = open_for_read(src);
    const uint64_t size = regular_file_size(in, src);
    const int out = sc::openat(AT_FDCWD, dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out < 0) fail_errno(errno, "cannot create %s", dst);
    int pipe_fds[2] = {-1, -1};
    if (via == "splice" && sc::pipe2(pipe_fds, O_CLOEXEC) != 0) fail_errno(errno, "pipe2");

    off_t in_off = 0, out_off = 0;
    for (uint64_t done = 0; done < size;) {
        const uint64_t want = size - done < chunk ? size - done : chunk;
        ssize_t n;
        if (via == "sendfile") {
            n = sc::sendfile(out, in, offsets ? &in_off : nullptr, want);
        } else if (via == "copy_file_range") {
            n = sc::copy_file_range(in, offsets ? &in_off : nullptr, out, offsets ? &out_off : nullptr, want,
                                    0);
        } else {
            n = sc::splice(in, offsets ? &in_off : nullptr, pipe_fds[1], nullptr, want, 0);
            if (n == static_cast<ssize_t>(want))
                n = sc::splice(pipe_fds[0], nullptr, out, offsets ? &out_off : nullptr, want, 0);
        }
        if (n < 0)
            fail_errno(errno, "%.*s from %s to %s at offset %llu", static_cast<int>(via.size()), via.data(),
                       src, dst, static_cast<unsigned long long>(done));
        if (static_cast<uint64_t>(n) != want)
            fail("%.*s of %llu bytes from %s moved %lld (did the file change?)", static_cast<int>(via.size()),
                 via.data(), static_cast<unsigned long long>(want), src, static_cast<long long>(n));
        done += want;
    }
    if (sc::close(out) != 0) fail_errno(errno, "cannot close %s", dst);
    if (sc::close(in) != 0) fail_errno(errno, "cannot close %s", src);
    if (pipe_fds[0] >= 0 && (sc::close(pipe_fds[0]) != 0 || sc::close(pipe_fds[1]) != 0))
        fail_errno(errno, "cannot close the pipe");
    return kExitOk;
}

}  // namespace wl
