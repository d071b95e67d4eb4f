// pread-loop: T threads x N pread64 of the same cached bytes at offset 0. The
// cheapest file read there is, so it measures the per-call cost a tracer adds
// (the benchmarks' workload) and gives an exact read count under load.
//
// File syscalls: openat(F) once, T*N pread64, close once. If F does not exist
// it is created first, before any timing (see docs/workload.md).
#include "args.h"
#include "dataset.h"
#include "modes.h"
#include "sys.h"
#include "util.h"

#include <pthread.h>

#include <cerrno>
#include <cstdlib>
#include <vector>

namespace wl {

namespace {

struct LoopShared {
    int fd;
    uint64_t count;
    uint64_t size;
    const char* path;
    pthread_barrier_t start;  // T>1: all threads begin together, after setup
};

struct LoopThread {
    LoopShared* shared;
    uint8_t* buf;
};

// The timed body. The length check costs nothing next to the syscall and
// catches a file shorter than --size (which would make "size bytes" a lie).
void pread_n(const LoopShared& s, uint8_t* buf) {
    for (uint64_t i = 0; i < s.count; ++i) {
        const ssize_t n = sc::pread64(s.fd, buf, s.size, 0);
        if (static_cast<uint64_t>(n) != s.size) {
            if (n < 0) fail_errno(errno, "pread64(%s) failed", s.path);
            fail("%s holds fewer than --size %llu bytes: remove it to let pread-loop recreate it", s.path,
                 static_cast<unsigned long long>(s.size));
        }
    }
}

void* thread_main(void* arg) {
    auto* t = static_cast<LoopThread*>(arg);
    pthread_barrier_wait(&t->shared->start);
    pread_n(*t->shared, t->buf);
    return nullptr;
}

}  // namespace

int run_pread_loop(int argc, char** argv) {
    const Args args({{"file", true}, {"count", true}, {"size", true}, {"threads", true}, {"report", false}},
                    argc, argv);
    LoopShared s{};
    s.path = args.text("file");
    s.count = args.number("count", 0, uint64_t{1} << 40);
    s.size = args.number_or("size", 4096, 1, uint64_t{1} << 30);
    const auto threads = static_cast<uint32_t>(args.number_or("threads", 1, 1, 1024));
    const bool report = args.flag("report");

    s.fd = open_or_create(s.path, s.size, kSingleFileKey);
    std::vector<uint8_t*> bufs(threads);
    for (auto& b : bufs) b = alloc_aligned(s.size);

    uint64_t elapsed = 0;
    const uint64_t cpu0 = process_cpu_ns();
    if (threads == 1) {
        // In the main thread: the benchmark's base case has no thread to start.
        const uint64_t t0 = monotonic_ns();
        pread_n(s, bufs[0]);
        elapsed = monotonic_ns() - t0;
    } else {
        pthread_barrier_init(&s.start, nullptr, threads + 1);
        std::vector<pthread_t> ids(threads);
        std::vector<LoopThread> ts(threads);
        for (uint32_t i = 0; i < threads; ++i) {
            ts[i] = LoopThread{&s, bufs[i]};
            if (const int err = pthread_create(&ids[i], nullptr, thread_main, &ts[i]); err != 0)
                fail_errno(err, "cannot start thread %u", i);
        }
        pthread_barrier_wait(&s.start);
        const uint64_t t0 = monotonic_ns();
        for (const pthread_t id : ids) pthread_join(id, nullptr);
        elapsed = monotonic_ns() - t0;
        pthread_barrier_destroy(&s.start);
    }

    // CPU time of the loop (every thread, user and system): what a tracer's
    // probes add runs in the calling thread, and unlike wall time this does
    // not grow when another process takes the CPU.
    const uint64_t cpu = process_cpu_ns() - cpu0;
    if (sc::close(s.fd) != 0) fail_errno(errno, "cannot close %s", s.path);
    for (auto* b : bufs) std::free(b);

    if (report) {
        // ns_per_op is wall time over one thread's count: with T threads
        // running side by side it is the mean latency one caller sees.
        const double per_op = s.count ? static_cast<double>(elapsed) / static_cast<double>(s.count) : 0.0;
        const uint64_t ops = s.count * threads;
        const double cpu_per_op = ops ? static_cast<double>(cpu) / static_cast<double>(ops) : 0.0;
        print_out(
            "threads=%u count=%llu size=%llu ops=%llu elapsed_ns=%llu cpu_ns_per_op=%.1f ns_per_op=%.1f\n",
            threads, static_cast<unsigned long long>(s.count), static_cast<unsigned long long>(s.size),
            static_cast<unsigned long long>(ops), static_cast<unsigned long long>(elapsed), cpu_per_op,
            per_op);
    }
    return kExitOk;
}

}  // namespace wl
