// stall, checkpoint and small-random: training-loop shapes that iolens's
// findings look for (input stalls in the main thread, blocking checkpoint
// writes, small random reads). docs/workload.md lists every file syscall.
#include "args.h"
#include "dataset.h"
#include "markers.h"
#include "modes.h"
#include "page_cache.h"
#include "rng.h"
#include "sys.h"
#include "util.h"

#include <sys/stat.h>

#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace wl {

namespace {

volatile uint64_t g_sink;

// The "training step" on one batch: touch it (so the data is used) and spin.
void consume(const uint8_t* buf, uint64_t size, uint64_t compute_ns) {
    uint64_t s = 0;
    for (uint64_t i = 0; i < size; i += 4096) s += buf[i];
    g_sink = g_sink + s;
    busy_wait_ns(compute_ns);
}

// A bounded queue of `depth` buffers between the prefetch thread (producer)
// and the main thread (consumer). A slot is free again only once main has
// finished computing on it.
class Prefetcher {
public:
    Prefetcher(int fd, const char* path, uint64_t count, uint64_t size, uint64_t slots, uint32_t depth)
        : fd_(fd), path_(path), count_(count), size_(size), slots_(slots), bufs_(depth) {
        for (auto& b : bufs_) b = alloc_aligned(size);
    }
    ~Prefetcher() {
        for (auto* b : bufs_) std::free(b);
    }

    void start() {
        thread_ = std::thread([this] { produce(); });
    }
    void join() { thread_.join(); }

    // Main: the next filled buffer (blocks while the queue is empty).
    const uint8_t* take(uint64_t& waited_ns) {
        std::unique_lock lock(mu_);
        const uint64_t t0 = monotonic_ns();
        cv_.wait(lock, [this] { return filled_ > 0; });
        waited_ns += monotonic_ns() - t0;
        return bufs_[head_ % bufs_.size()];
    }
    // Main: done with the buffer take() returned.
    void release() {
        {
            std::lock_guard lock(mu_);
            ++head_;
            --filled_;
        }
        cv_.notify_all();
    }

private:
    void produce() {
        for (uint64_t i = 0; i < count_; ++i) {
            uint8_t* buf;
            {
                std::unique_lock lock(mu_);
                cv_.wait(lock, [this, i] { return head_ + bufs_.size() > i; });  // a free slot
                buf = bufs_[i % bufs_.size()];
            }
            pread_exact(fd_, buf, size_, (i % slots_) * size_, path_);
            {
                std::lock_guard lock(mu_);
                ++filled_;
            }
            cv_.notify_all();
        }
    }

    int fd_;
    const char* path_;
    uint64_t count_, size_, slots_;
    std::vector<uint8_t*> bufs_;
    std::mutex mu_;
    std::condition_variable cv_;
    uint64_t head_ = 0;    // buffers main has released
    uint64_t filled_ = 0;  // buffers ready and not yet released
    std::thread thread_;
};

}  // namespace

// openat [O_DIRECT], fstat, [fadvise DONTNEED], N pread64 of B bytes at (i mod slots) * B,
// in the main thread between computes or in a prefetch thread, close.
int run_stall(int argc, char** argv) {
    const Args args({{"file", true},
                     {"count", true},
                     {"size", true},
                     {"compute-us", true},
                     {"prefetch", false},
                     {"depth", true},
                     {"evict-first", false},
                     {"direct", false},
                     {"report", false}},
                    argc, argv);
    const char* path = args.text("file");
    const uint64_t count = args.number("count", 0, uint64_t{1} << 40);
    const uint64_t size = args.number("size", 1, kMaxIo);
    const uint64_t compute_ns = args.number("compute-us", 0, 60'000'000) * 1000;
    const bool prefetch = args.flag("prefetch");
    const auto depth = static_cast<uint32_t>(args.number_or("depth", 4, 2, 1024));
    if (!prefetch && args.text_or("depth", nullptr)) fail_usage("--depth needs --prefetch");
    const bool evict_first = args.flag("evict-first");
    // O_DIRECT: every read is a device round trip, so the I/O time does not
    // depend on what the host happens to cache behind a virtual disk.
    const bool direct = args.flag("direct");
    if (direct && size % kPageSize != 0) fail_usage("--direct needs a --size that is a multiple of 4096");
    const bool report = args.flag("report");

    const int fd = open_for_read(path, direct ? O_DIRECT : 0);
    const uint64_t file_size = size_for_reads(fd, path, size);
    const uint64_t slots = file_size / size;  // whole B-byte pieces; offsets wrap after the last
    if (evict_first) advise(fd, 0, 0, POSIX_FADV_DONTNEED, "POSIX_FADV_DONTNEED", path);

    uint64_t waited_ns = 0;  // main's time not computing: its own reads, or waiting on the queue
    const uint64_t t0 = monotonic_ns();
    if (!prefetch) {
        uint8_t* buf = alloc_aligned(size);
        for (uint64_t i = 0; i < count; ++i) {
            const uint64_t r0 = monotonic_ns();
            pread_exact(fd, buf, size, (i % slots) * size, path);
            waited_ns += monotonic_ns() - r0;
            consume(buf, size, compute_ns);
        }
        std::free(buf);
    } else {
        Prefetcher pf(fd, path, count, size, slots, depth);
        pf.start();
        for (uint64_t i = 0; i < count; ++i) {
            consume(pf.take(waited_ns), size, compute_ns);
            pf.release();
        }
        pf.join();
    }
    const uint64_t elapsed = monotonic_ns() - t0;
    if (sc::close(fd) != 0) fail_errno(errno, "cannot close %s", path);
    if (report)
        print_out("reads=%llu size=%llu prefetch=%d elapsed_ns=%llu main_wait_ns=%llu\n",
                  static_cast<unsigned long long>(count), static_cast<unsigned long long>(size),
                  prefetch ? 1 : 0, static_cast<unsigned long long>(elapsed),
                  static_cast<unsigned long long>(waited_ns));
    return kExitOk;
}

// Per epoch: [marker], compute, openat(D/ckpt_<e>.bin, O_WRONLY|O_CREAT|O_TRUNC),
// ceil(S / 1 MiB) write, fsync, close. [end marker].
int run_checkpoint(int argc, char** argv) {
    const Args args(
        {{"dir", true}, {"epochs", true}, {"size", true}, {"compute-us", true}, {"markers", false}}, argc,
        argv);
    const char* dir = args.text("dir");
    const uint64_t epochs = args.number("epochs", 1, 1'000'000);
    const uint64_t size = args.number("size", 0, uint64_t{1} << 40);
    const uint64_t compute_ns = args.number_or("compute-us", 0, 0, 600'000'000) * 1000;
    const bool markers = args.flag("markers");

    if (mkdir(dir, 0755) != 0 && errno != EEXIST) fail_errno(errno, "cannot create %s", dir);
    for (uint64_t e = 0; e < epochs; ++e) {
        if (markers) marker_epoch(e);
        busy_wait_ns(compute_ns);
        const std::string path = std::string(dir) + "/ckpt_" + std::to_string(e) + ".bin";
        const int fd = sc::openat(AT_FDCWD, path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) fail_errno(errno, "cannot create %s", path.c_str());
        write_content(fd, path.c_str(), size, kCreateChunk, file_key(1 + e));
        if (sc::fsync(fd) != 0) fail_errno(errno, "cannot fsync %s", path.c_str());
        if (sc::close(fd) != 0) fail_errno(errno, "cannot close %s", path.c_str());
    }
    if (markers) marker_end();
    return kExitOk;
}

// openat, fstat, N pread64 of B bytes at pseudo-random byte offsets in
// [0, size - B], close.
int run_small_random(int argc, char** argv) {
    const Args args({{"file", true}, {"count", true}, {"size", true}, {"seed", true}}, argc, argv);
    const char* path = args.text("file");
    const uint64_t count = args.number("count", 0, uint64_t{1} << 40);
    const uint64_t size = args.number_or("size", 512, 1, kMaxIo);
    const uint64_t seed = args.number_or("seed", 1, 0, UINT64_MAX);

    uint8_t* buf = alloc_aligned(size);
    const int fd = open_for_read(path);
    const uint64_t file_size = size_for_reads(fd, path, size);
    SplitMix64 rng(mix64(seed ^ 0x736d616c6cull));  // "small"
    for (uint64_t i = 0; i < count; ++i) pread_exact(fd, buf, size, rng.below(file_size - size + 1), path);
    if (sc::close(fd) != 0) fail_errno(errno, "cannot close %s", path);
    std::free(buf);
    return kExitOk;
}

}  // namespace wl
