// dl: the input pipeline of a PyTorch DataLoader (num_workers=W, shuffle=True),
// reduced to the I/O it makes. By default persistent_workers=False (workers are
// forked anew every epoch); --persistent-workers forks them once.
//
// Per epoch the main process shuffles the sample indices and consumes samples
// in sampler order; worker k loads the positions p with p % W == k, the same
// round-robin DataLoader uses to assign batches. Samples travel as 16-byte
// messages over one pipe per worker, standing in for DataLoader's queues.
// Persistent workers also get one command pipe each, on which main sends each
// epoch's assignment (and finally a stop message).
//
// Exact file syscalls (docs/workload.md): each worker only opens, reads and
// closes its samples; the main process makes no file syscall but close() on its
// pipe ends and, with --markers, the access() markers (markers.h).
#include "args.h"
#include "dataset.h"
#include "markers.h"
#include "modes.h"
#include "page_cache.h"
#include "pipeline.h"
#include "rng.h"
#include "sys.h"
#include "util.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <csignal>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <vector>

namespace wl {

namespace {

// What a worker hands back per sample. 16 bytes is far below PIPE_BUF, so each
// message is written atomically and read back whole.
struct SampleMsg {
    uint64_t index;
    uint64_t checksum;
};
static_assert(sizeof(SampleMsg) == 16);

// What main sends a persistent worker at the start of each epoch, followed by
// `count` uint32 share positions. count == kStop ends the worker.
struct EpochCmd {
    uint64_t epoch;
    uint64_t count;
};
constexpr uint64_t kStop = UINT64_MAX;

struct Shared {
    const PipelineConfig* cfg;
    std::vector<std::string> paths;  // paths[j]: the file of share[j]
    uint8_t* buf;
};

// Loads one sample the way a map-style Dataset.__getitem__ over raw files
// does: open, read in read_size pieces until end of file, close. No stat: the
// read that returns 0 is what finds the end.
uint64_t load_sample(const Shared& sh, uint32_t pos, uint32_t worker) {
    const PipelineConfig& cfg = *sh.cfg;
    const char* path = sh.paths[pos].c_str();
    const int fd = sc::openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        fail_errno(errno, "worker %u: cannot open %s (create the dataset with make-dataset)", worker, path);
    Fnv1a sum;
    uint64_t total = 0;
    for (;;) {
        const ssize_t n = sc::read(fd, sh.buf, cfg.read_size);
        if (n < 0) fail_errno(errno, "worker %u: cannot read %s", worker, path);
        if (n == 0) break;
        sum.update(sh.buf, static_cast<size_t>(n));
        total += static_cast<uint64_t>(n);
    }
    if (cfg.drop_after) advise(fd, 0, 0, POSIX_FADV_DONTNEED, "POSIX_FADV_DONTNEED", path);
    if (sc::close(fd) != 0) fail_errno(errno, "worker %u: cannot close %s", worker, path);
    if (total != cfg.size)
        fail("worker %u: %s holds %llu bytes, not --size %llu: recreate the dataset with make-dataset",
             worker, path, static_cast<unsigned long long>(total), static_cast<unsigned long long>(cfg.size));
    return sum.value();
}

void send_sample(const Shared& sh, uint32_t pos, uint32_t worker, int out_fd) {
    uint64_t checksum = 0;
    for (uint32_t r = 0; r < sh.cfg->repeat; ++r) checksum = load_sample(sh, pos, worker);
    const SampleMsg msg{sh.cfg->share[pos], checksum};
    write_all(out_fd, &msg, sizeof msg, "the worker pipe");
}

// A worker never closes the pipe ends it inherited: the kernel drops them at
// exit, and leaving them keeps the worker's close() count equal to its samples.
[[noreturn]] void epoch_worker_main(const Shared& sh, const std::vector<uint32_t>& order, uint32_t worker,
                                    int out_fd) {
    for (size_t p = worker; p < order.size(); p += sh.cfg->workers) send_sample(sh, order[p], worker, out_fd);
    _exit(kExitOk);
}

// A persistent worker: one EpochCmd and its positions per epoch, until kStop.
// `todo` was sized before the fork, so the worker allocates nothing.
[[noreturn]] void persistent_worker_main(const Shared& sh, uint32_t worker, int in_fd, int out_fd,
                                         std::vector<uint32_t>& todo) {
    // If main ends early (another worker failed), this worker must not wait
    // for commands forever: the kernel kills it when main exits.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    for (;;) {
        EpochCmd cmd;
        if (!read_exact(in_fd, &cmd, sizeof cmd, "the command pipe"))
            fail("worker %u: command pipe closed", worker);
        if (cmd.count == kStop) _exit(kExitOk);
        if (cmd.count > todo.capacity())
            fail("worker %u: %llu samples assigned", worker, static_cast<unsigned long long>(cmd.count));
        todo.resize(cmd.count);
        if (cmd.count > 0) read_exact(in_fd, todo.data(), cmd.count * sizeof(uint32_t), "the command pipe");
        for (const uint32_t pos : todo) send_sample(sh, pos, worker, out_fd);
    }
}

// Persistent workers only exit when told to, and each holds the write ends of
// the other workers' data pipes, so main would never see end of file on a
// failed worker's pipe. While they run, a SIGCHLD handler peeks (WNOWAIT: the
// child stays for wait_for_success) at the exited child and ends main if it
// failed. Only async-signal-safe calls here.
extern "C" void on_worker_exit(int) {
    const int saved = errno;
    siginfo_t info{};
    if (waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid != 0 &&
        !(info.si_code == CLD_EXITED && info.si_status == 0)) {
        static const char msg[] =
            "iolens-workload: a persistent DataLoader worker failed (see its message above)\n";
        (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
        _exit(kExitFailure);
    }
    errno = saved;
}

void watch_persistent_workers() {
    struct sigaction sa {};
    sa.sa_handler = on_worker_exit;
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGCHLD, &sa, nullptr) != 0) fail_errno(errno, "cannot install the SIGCHLD handler");
}

void close_or_fail(int fd, const char* what) {
    if (sc::close(fd) != 0) fail_errno(errno, "cannot close %s", what);
}

class Pipeline {
public:
    explicit Pipeline(const PipelineConfig& cfg) : cfg_(cfg) {
        sh_.cfg = &cfg;
        sh_.paths.resize(cfg.share.size());
        for (size_t j = 0; j < cfg.share.size(); ++j) sh_.paths[j] = sample_path(cfg.dir, cfg.share[j]);
        sh_.buf = alloc_aligned(cfg.read_size);
        todo_.reserve(cfg.share.size() / cfg.workers + 1);
    }
    ~Pipeline() { std::free(sh_.buf); }

    uint64_t run() {
        uint64_t digest = 0;
        for (uint64_t e = 0; e < cfg_.epochs; ++e) {
            if (cfg_.markers) marker_epoch(e);
            digest = mix64(digest ^ epoch(e));
        }
        if (cfg_.persistent) stop_persistent();
        if (cfg_.markers) marker_end();
        return digest;
    }

private:
    // Sampler order of epoch e, as share positions.
    std::vector<uint32_t> order_of(uint64_t e) const {
        return shuffled_indices(static_cast<uint32_t>(cfg_.share.size()), cfg_.seed + e);
    }

    void make_pipes(std::vector<std::array<int, 2>>& pipes) {
        pipes.resize(cfg_.workers);
        for (auto& fds : pipes)
            if (pipe2(fds.data(), O_CLOEXEC) != 0) fail_errno(errno, "cannot create a worker pipe");
    }

    void start_persistent() {
        watch_persistent_workers();
        make_pipes(data_);
        make_pipes(cmd_);
        pids_.resize(cfg_.workers);
        for (uint32_t k = 0; k < cfg_.workers; ++k) {
            pids_[k] = fork();
            if (pids_[k] < 0) fail_errno(errno, "cannot fork worker %u", k);
            if (pids_[k] == 0) persistent_worker_main(sh_, k, cmd_[k][0], data_[k][1], todo_);
        }
        for (uint32_t k = 0; k < cfg_.workers; ++k) {
            close_or_fail(data_[k][1], "a worker pipe");
            close_or_fail(cmd_[k][0], "a command pipe");
        }
        started_ = true;
    }

    void stop_persistent() {
        for (uint32_t k = 0; k < cfg_.workers; ++k) {
            const EpochCmd cmd{cfg_.epochs, kStop};
            write_all(cmd_[k][1], &cmd, sizeof cmd, "a command pipe");
        }
        for (uint32_t k = 0; k < cfg_.workers; ++k) {
            close_or_fail(cmd_[k][1], "a command pipe");
            close_or_fail(data_[k][0], "a worker pipe");
        }
        for (uint32_t k = 0; k < cfg_.workers; ++k) wait_for_success(pids_[k], "a DataLoader worker");
    }

    // One epoch; returns the digest of the checksums consumed, in sampler order.
    uint64_t epoch(uint64_t e) {
        const std::vector<uint32_t> order = order_of(e);
        const uint32_t n = static_cast<uint32_t>(order.size());
        if (cfg_.persistent) {
            if (!started_) start_persistent();
            std::vector<uint32_t> mine;
            for (uint32_t k = 0; k < cfg_.workers; ++k) {
                mine.clear();
                for (size_t p = k; p < n; p += cfg_.workers) mine.push_back(order[p]);
                const EpochCmd cmd{e, mine.size()};
                write_all(cmd_[k][1], &cmd, sizeof cmd, "a command pipe");
                if (!mine.empty())
                    write_all(cmd_[k][1], mine.data(), mine.size() * sizeof(uint32_t), "a command pipe");
            }
        } else {
            make_pipes(data_);
            pids_.resize(cfg_.workers);
            for (uint32_t k = 0; k < cfg_.workers; ++k) {
                pids_[k] = fork();
                if (pids_[k] < 0) fail_errno(errno, "cannot fork worker %u", k);
                if (pids_[k] == 0) epoch_worker_main(sh_, order, k, data_[k][1]);
            }
            for (const auto& fds : data_) close_or_fail(fds[1], "a worker pipe");
        }

        uint64_t digest = 0;
        for (uint32_t p = 0; p < n; ++p) {
            if (cfg_.steps != 0 && p % cfg_.steps == 0) marker_step(step_++);
            const uint32_t k = p % cfg_.workers;
            SampleMsg msg;
            if (!read_exact(data_[k][0], &msg, sizeof msg, "a worker pipe"))
                fail("epoch %llu: worker %u stopped before delivering its samples (see its message above)",
                     static_cast<unsigned long long>(e), k);
            if (msg.index != cfg_.share[order[p]])
                fail("epoch %llu: worker %u sent sample %llu at position %u, expected %u",
                     static_cast<unsigned long long>(e), k, static_cast<unsigned long long>(msg.index), p,
                     cfg_.share[order[p]]);
            digest = mix64(digest ^ msg.checksum);
            busy_wait_ns(cfg_.compute_ns);  // the training step on this sample
        }

        if (!cfg_.persistent) {
            for (const auto& fds : data_) close_or_fail(fds[0], "a worker pipe");
            for (uint32_t k = 0; k < cfg_.workers; ++k) wait_for_success(pids_[k], "a DataLoader worker");
        }
        return digest;
    }

    const PipelineConfig& cfg_;
    Shared sh_{};
    std::vector<uint32_t> todo_;            // a persistent worker's assignment (reserved before the fork)
    std::vector<std::array<int, 2>> data_;  // worker -> main, one per worker
    std::vector<std::array<int, 2>> cmd_;   // main -> persistent worker
    std::vector<pid_t> pids_;
    bool started_ = false;
    uint64_t step_ = 0;
};

}  // namespace

uint64_t run_pipeline(const PipelineConfig& cfg) {
    Pipeline p(cfg);
    return p.run();
}

int run_dl(int argc, char** argv) {
    const Args args({{"dir", true},
                     {"files", true},
                     {"size", true},
                     {"epochs", true},
                     {"workers", true},
                     {"read-size", true},
                     {"compute-us", true},
                     {"seed", true},
                     {"markers", false},
                     {"steps", true},
                     {"persistent-workers", false},
                     {"drop-after", false},
                     {"report", false}},
                    argc, argv);
    PipelineConfig cfg;
    cfg.dir = args.text("dir");
    const auto files = static_cast<uint32_t>(args.number("files", 1, 10'000'000));
    cfg.size = args.number("size", 0, uint64_t{1} << 40);
    cfg.epochs = args.number("epochs", 1, 1'000'000);
    cfg.workers = static_cast<uint32_t>(args.number("workers", 1, 256));
    cfg.read_size = args.number_or("read-size", 65536, 1, uint64_t{1} << 30);
    cfg.compute_ns = args.number_or("compute-us", 200, 0, 60'000'000) * 1000;
    cfg.seed = args.number_or("seed", 1, 0, UINT64_MAX);
    cfg.markers = args.flag("markers");
    cfg.steps = args.number_or("steps", 0, 1, 10'000'000);
    if (cfg.steps != 0 && !cfg.markers) fail_usage("--steps needs --markers");
    cfg.persistent = args.flag("persistent-workers");
    cfg.drop_after = args.flag("drop-after");
    const bool report = args.flag("report");
    cfg.share.resize(files);
    for (uint32_t i = 0; i < files; ++i) cfg.share[i] = i;

    // Everything a worker needs is prepared before the first fork, so workers
    // allocate nothing and inherit the paths and the buffer.
    const uint64_t start = monotonic_ns();
    const uint64_t digest = run_pipeline(cfg);
    const uint64_t elapsed = monotonic_ns() - start;

    if (report)
        print_out("epochs=%llu samples=%llu elapsed_ns=%llu digest=%016llx\n",
                  static_cast<unsigned long long>(cfg.epochs),
                  static_cast<unsigned long long>(cfg.epochs * files),
                  static_cast<unsigned long long>(elapsed), static_cast<unsigned long long>(digest));
    return kExitOk;
}

}  // namespace wl
