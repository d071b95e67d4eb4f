// turn-read: T threads of one process read one file front to back, taking
// strict turns: thread k % T makes the k-th pread64 (offset k * C), and the
// next thread starts only after it returned. So by start time every read
// begins where the previous one ended: a sequential scan of the file, made
// by several threads. The waiting threads spin instead of sleeping, so none
// is descheduled between its reads: each thread's records then reach the
// recorder in runs (per-thread batches, docs/capture.md), not interleaved as
// they started, and the report must still call every read sequential.
//
// File syscalls: openat(F) once, ceil(S / C) pread64, close once (S: F's size
// from fstat, so fstat once too).
#include "args.h"
#include "modes.h"
#include "page_cache.h"
#include "sys.h"
#include "util.h"

#include <pthread.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <vector>

namespace wl {

namespace {

struct TurnShared {
    int fd;
    uint64_t chunk;
    uint64_t size;
    uint64_t reads;  // ceil(size / chunk)
    uint64_t threads;
    const char* path;
    std::atomic<uint64_t> turn{0};  // index of the next read; thread turn % T makes it
};

struct TurnThread {
    TurnShared* shared;
    uint64_t index;
    uint8_t* buf;
};

void* turn_main(void* arg) {
    auto* t = static_cast<TurnThread*>(arg);
    TurnShared& s = *t->shared;
    for (uint64_t k = t->index; k < s.reads; k += s.threads) {
        while (s.turn.load(std::memory_order_acquire) != k) __builtin_ia32_pause();
        const uint64_t offset = k * s.chunk;
        const uint64_t want = offset + s.chunk <= s.size ? s.chunk : s.size - offset;
        const ssize_t n = sc::pread64(s.fd, t->buf, s.chunk, static_cast<off_t>(offset));
        if (n < 0)
            fail_errno(errno, "pread64(%s) at offset %llu failed", s.path,
                       static_cast<unsigned long long>(offset));
        if (static_cast<uint64_t>(n) != want)
            fail("pread64(%s) at offset %llu returned %lld, not %llu (did the file change?)", s.path,
                 static_cast<unsigned long long>(offset), static_cast<long long>(n),
                 static_cast<unsigned long long>(want));
        s.turn.store(k + 1, std::memory_order_release);
    }
    return nullptr;
}

}  // namespace

int run_turn_read(int argc, char** argv) {
    const Args args({{"file", true}, {"threads", true}, {"chunk", true}}, argc, argv);
    TurnShared s;
    s.path = args.text("file");
    s.threads = args.number_or("threads", 2, 1, 64);
    s.chunk = args.number_or("chunk", 4096, 1, uint64_t{1} << 26);

    s.fd = open_for_read(s.path);
    s.size = regular_file_size(s.fd, s.path);
    if (s.size == 0) fail("%s is empty: there is nothing to read", s.path);
    s.reads = (s.size + s.chunk - 1) / s.chunk;

    std::vector<TurnThread> t(s.threads);
    std::vector<pthread_t> ids(s.threads);
    for (uint64_t i = 0; i < s.threads; ++i) t[i] = {&s, i, alloc_aligned(s.chunk)};
    for (uint64_t i = 0; i < s.threads; ++i)
        if (int e = pthread_create(&ids[i], nullptr, turn_main, &t[i]); e != 0)
            fail_errno(e, "pthread_create");
    for (uint64_t i = 0; i < s.threads; ++i) pthread_join(ids[i], nullptr);
    if (sc::close(s.fd) != 0) fail_errno(errno, "cannot close %s", s.path);
    for (auto& th : t) std::free(th.buf);
    return kExitOk;
}

}  // namespace wl
