// dl: the input pipeline of a PyTorch DataLoader (num_workers=W, shuffle=True,
// persistent_workers=False), reduced to the I/O it makes.
//
// Per epoch the main process shuffles the sample indices, forks W workers (no
// exec, as DataLoader's default fork start method does) and consumes samples in
// sampler order; worker k loads the positions p with p % W == k, the same
// round-robin DataLoader uses to assign batches. Samples travel as 16-byte
// messages over one pipe per worker, standing in for DataLoader's queues.
//
// Exact file syscalls (docs/workload.md): each worker only opens, reads and
// closes its samples; the main process makes no file syscall but close() on its
// pipe ends.
#include "args.h"
#include "dataset.h"
#include "modes.h"
#include "rng.h"
#include "sys.h"
#include "util.h"

#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

namespace wl {

namespace {

struct DlConfig {
    const char* dir;
    uint32_t files;
    uint64_t size;
    uint64_t epochs;
    uint32_t workers;
    uint64_t read_size;
    uint64_t compute_ns;
    uint64_t seed;
    bool report;
};

// What a worker hands back per sample. 16 bytes is far below PIPE_BUF, so each
// message is written atomically and read back whole.
struct SampleMsg {
    uint64_t index;
    uint64_t checksum;
};
static_assert(sizeof(SampleMsg) == 16);

// Loads one sample the way a map-style Dataset.__getitem__ over raw files
// does: open, read in read_size pieces until end of file, close. No stat: the
// read that returns 0 is what finds the end.
uint64_t load_sample(const DlConfig& cfg, const char* path, uint8_t* buf, uint32_t worker) {
    const int fd = sc::openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail_errno(errno, "worker %u: cannot open %s (create the dataset with make-dataset)", worker, path);
    Fnv1a sum;
    uint64_t total = 0;
    for (;;) {
        const ssize_t n = sc::read(fd, buf, cfg.read_size);
        if (n < 0) fail_errno(errno, "worker %u: cannot read %s", worker, path);
        if (n == 0) break;
        sum.update(buf, static_cast<size_t>(n));
        total += static_cast<uint64_t>(n);
    }
    if (sc::close(fd) != 0) fail_errno(errno, "worker %u: cannot close %s", worker, path);
    if (total != cfg.size)
        fail("worker %u: %s holds %llu bytes, not --size %llu: recreate the dataset with make-dataset", worker,
             path, static_cast<unsigned long long>(total), static_cast<unsigned long long>(cfg.size));
    return sum.value();
}

// A worker never closes the pipe ends it inherited: the kernel drops them at
// exit, and leaving them keeps the worker's close() count equal to its samples.
[[noreturn]] void worker_main(const DlConfig& cfg, const std::vector<std::string>& paths,
                              const std::vector<uint32_t>& order, uint32_t worker, int out_fd, uint8_t* buf) {
    for (size_t p = worker; p < order.size(); p += cfg.workers) {
        const uint32_t index = order[p];
        const SampleMsg msg{index, load_sample(cfg, paths[index].c_str(), buf, worker)};
        write_all(out_fd, &msg, sizeof msg, "the worker pipe");
    }
    _exit(kExitOk);
}

void close_or_fail(int fd, const char* what) {
    if (sc::close(fd) != 0) fail_errno(errno, "cannot close %s", what);
}

// One epoch; returns the digest of the checksums consumed, in sampler order.
uint64_t run_epoch(const DlConfig& cfg, const std::vector<std::string>& paths, uint64_t epoch, uint8_t* buf) {
    const std::vector<uint32_t> order = shuffled_indices(cfg.files, cfg.seed + epoch);

    std::vector<std::array<int, 2>> pipes(cfg.workers);
    for (auto& fds : pipes)
        if (pipe2(fds.data(), O_CLOEXEC) != 0) fail_errno(errno, "cannot create a worker pipe");

    std::vector<pid_t> pids(cfg.workers);
    for (uint32_t k = 0; k < cfg.workers; ++k) {
        pids[k] = fork();
        if (pids[k] < 0) fail_errno(errno, "cannot fork worker %u", k);
        if (pids[k] == 0) worker_main(cfg, paths, order, k, pipes[k][1], buf);
    }
    for (const auto& fds : pipes) close_or_fail(fds[1], "a worker pipe");

    uint64_t digest = 0;
    for (uint32_t p = 0; p < cfg.files; ++p) {
        const uint32_t k = p % cfg.workers;
        SampleMsg msg;
        if (!read_exact(pipes[k][0], &msg, sizeof msg, "a worker pipe"))
            fail("epoch %llu: worker %u stopped before delivering its samples (see its message above)",
                 static_cast<unsigned long long>(epoch), k);
        if (msg.index != order[p])
            fail("epoch %llu: worker %u sent sample %llu at position %u, expected %u",
                 static_cast<unsigned long long>(epoch), k, static_cast<unsigned long long>(msg.index), p,
                 order[p]);
        digest = mix64(digest ^ msg.checksum);
        busy_wait_ns(cfg.compute_ns);  // the training step on this sample
    }

    for (const auto& fds : pipes) close_or_fail(fds[0], "a worker pipe");
    for (uint32_t k = 0; k < cfg.workers; ++k) wait_for_success(pids[k], "a DataLoader worker");
    return digest;
}

}  // namespace

int run_dl(int argc, char** argv) {
    const Args args({{"dir", true},
                     {"files", true},
                     {"size", true},
                     {"epochs", true},
                     {"workers", true},
                     {"read-size", true},
                     {"compute-us", true},
                     {"seed", true},
                     {"report", false}},
                    argc, argv);
    DlConfig cfg{};
    cfg.dir = args.text("dir");
    cfg.files = static_cast<uint32_t>(args.number("files", 1, 10'000'000));
    cfg.size = args.number("size", 0, uint64_t{1} << 40);
    cfg.epochs = args.number("epochs", 1, 1'000'000);
    cfg.workers = static_cast<uint32_t>(args.number("workers", 1, 256));
    cfg.read_size = args.number_or("read-size", 65536, 1, uint64_t{1} << 30);
    cfg.compute_ns = args.number_or("compute-us", 200, 0, 60'000'000) * 1000;
    cfg.seed = args.number_or("seed", 1, 0, UINT64_MAX);
    cfg.report = args.flag("report");

    // Everything a worker needs is prepared before the first fork, so workers
    // allocate nothing and inherit the paths and the buffer.
    std::vector<std::string> paths(cfg.files);
    for (uint32_t i = 0; i < cfg.files; ++i) paths[i] = sample_path(cfg.dir, i);
    void* raw = nullptr;
    if (posix_memalign(&raw, 4096, cfg.read_size) != 0) fail("cannot allocate a %llu-byte read buffer",
                                                            static_cast<unsigned long long>(cfg.read_size));
    auto* buf = static_cast<uint8_t*>(raw);

    const uint64_t start = monotonic_ns();
    uint64_t digest = 0;
    for (uint64_t e = 0; e < cfg.epochs; ++e) digest = mix64(digest ^ run_epoch(cfg, paths, e, buf));
    const uint64_t elapsed = monotonic_ns() - start;
    std::free(raw);

    if (cfg.report)
        print_out("epochs=%llu samples=%llu elapsed_ns=%llu digest=%016llx\n",
                  static_cast<unsigned long long>(cfg.epochs),
                  static_cast<unsigned long long>(cfg.epochs * cfg.files),
                  static_cast<unsigned long long>(elapsed), static_cast<unsigned long long>(digest));
    return kExitOk;
}

}  // namespace wl
