// iolens-workload: deterministic I/O workloads whose file syscalls are known
// exactly, for iolens's privileged tests and benchmarks. This file only picks
// the mode; docs/workload.md lists what each mode does, call by call.
//
// The binary is static (tools/CMakeLists.txt) and uses no stdio streams,
// iostreams or locale, so the only file syscalls a run makes are the ones
// its mode spells out.
#include "modes.h"
#include "util.h"

#include <cstring>
#include <unistd.h>

namespace {

struct Mode {
    const char* name;
    int (*run)(int argc, char** argv);
};

constexpr Mode kModes[] = {
    {"make-dataset", wl::run_make_dataset},
    {"dl", wl::run_dl},
    {"known", wl::run_known},
    {"known-exec-child", wl::run_known_exec_child},  // internal: exec'd by `known`
    {"pread-loop", wl::run_pread_loop},
    {"turn-read", wl::run_turn_read},
    {"attach-target", wl::run_attach_target},
    {"make-file", wl::run_make_file},
    {"evict", wl::run_evict},
    {"residency", wl::run_residency},
    {"seq-read", wl::run_seq_read},
    {"reverse-aio-read", wl::run_reverse_aio_read},
    {"mmap-scan", wl::run_mmap_scan},
    {"random-read", wl::run_random_read},
    {"write-file", wl::run_write_file},
    {"exit-code", wl::run_exit_code},
    {"kill-self", wl::run_kill_self},
    {"ranks", wl::run_ranks},
    {"rank", wl::run_rank},  // internal: exec'd by `ranks`
    {"stall", wl::run_stall},
    {"checkpoint", wl::run_checkpoint},
    {"small-random", wl::run_small_random},
};

constexpr const char kUsage[] =
    "usage: iolens-workload <mode> [--option value ...]\n"
    "\n"
    "Deterministic I/O workloads whose file syscalls are known exactly\n"
    "(docs/workload.md gives the counts for each mode).\n"
    "\n"
    "modes:\n"
    "  make-dataset --dir D --files N --size BYTES [--seed S=1]\n"
    "      Create D (if missing) and D/sample_000000.bin ... with deterministic\n"
    "      content. Setup step, not meant to be traced.\n"
    "  dl --dir D --files N --size BYTES --epochs E --workers W\n"
    "     [--read-size R=65536] [--compute-us U=200] [--seed S=1]\n"
    "     [--markers [--steps K]] [--persistent-workers] [--report]\n"
    "      DataLoader-like input pipeline over a make-dataset dataset: each\n"
    "      epoch shuffles (seed S+epoch), forks W workers that open, read (R-byte\n"
    "      reads until EOF) and close their samples and send 16-byte messages\n"
    "      over pipes; the main process spins U us per sample.\n"
    "      --markers: main calls access(\"/.iolens/epoch/<e>\") at the start of\n"
    "      each epoch e (0-based) and access(\"/.iolens/end\") at the end;\n"
    "      --steps K adds access(\"/.iolens/step/<s>\") before every K-th sample\n"
    "      (s counts from 0 over the whole run). --persistent-workers forks the\n"
    "      W workers once and sends each epoch's assignment over a pipe.\n"
    "  ranks --dir D --files N --size BYTES --ranks R --workers W --epochs E\n"
    "        [--markers [--steps K]] [--compute-us U=200] [--read-size R=65536]\n"
    "        [--seed S=1] [--persistent-workers]\n"
    "        [--straggler R0 [--straggler-factor F=2]]\n"
    "      A DDP-like job: forks R ranks, each exec'ing /proc/self/exe with\n"
    "      RANK=r LOCAL_RANK=r WORLD_SIZE=R in its environment; rank r runs\n"
    "      the dl pipeline (W workers) over the files i with i % R == r. Rank R0\n"
    "      loads each of its samples F times. The parent waits for all ranks.\n"
    "  stall --file F --count N --size B --compute-us U [--prefetch [--depth D=4]]\n"
    "        [--evict-first] [--direct] [--report]\n"
    "      N pread64 of B bytes at offsets (i mod floor(size/B))*B, each followed\n"
    "      by U us of compute in the main thread. Without --prefetch the main\n"
    "      thread reads (an input stall); with it a second thread reads ahead\n"
    "      into a D-buffer queue. --evict-first drops F's cached pages first\n"
    "      (fadvise DONTNEED) so reads go to the device. --report prints\n"
    "      \"reads= size= prefetch= elapsed_ns= main_wait_ns=\". --direct opens F\n"
    "      with O_DIRECT (B a multiple of 4096): each read is a device round trip.\n"
    "  checkpoint --dir D --epochs E --size S [--compute-us U=0] [--markers]\n"
    "      Per epoch e: spin U us, then create D/ckpt_<e>.bin, write() S bytes in\n"
    "      1 MiB chunks, fsync, close (all in the main thread).\n"
    "  small-random --file F --count N [--size B=512] [--seed S=1]\n"
    "      N pread64 of B bytes at pseudo-random byte offsets in [0, size-B].\n"
    "  known --dir D\n"
    "      Fixed multi-process scenario (main, a forked child, a fork+exec'd\n"
    "      child) touching every syscall class, with errors and pipe traffic.\n"
    "      D must be empty or only used by this mode.\n"
    "  pread-loop --file F --count N [--size B=4096] [--threads T=1] [--report]\n"
    "      Open F (created first if missing), T threads x N pread64(B bytes at\n"
    "      offset 0), close. --report prints the timing on stdout.\n"
    "  turn-read --file F [--threads T=2] [--chunk C=4096]\n"
    "      Open and fstat F, then T threads read it front to back taking strict\n"
    "      turns (the k-th pread64, of C bytes at k*C, by thread k mod T; the\n"
    "      others spin meanwhile), close.\n"
    "  attach-target --file F --children C --reads K [--size B=4096] [--own-reads N]\n"
    "      Print \"<pid> ready\", wait for SIGUSR1, then fork C children that each\n"
    "      open F, make K pread64(B bytes at offset 0) and close it.\n"
    "      --own-reads N: then open F, make N such reads, close it, print\n"
    "      \"<pid> done\" and wait for a second SIGUSR1.\n"
    "  exit-code --code N\n"
    "      Exit with status N (0-255).\n"
    "  kill-self --signal N\n"
    "      Kill itself with signal N (a signal that terminates by default).\n"
    "\n"
    "page cache and block layer (docs/workload.md, \"Page cache and block layer\"):\n"
    "  make-file --file F --size S [--seed N=1]\n"
    "      Create or overwrite F with S bytes of deterministic content (1 MiB\n"
    "      writes), fsync, close: F is then cached and clean. Setup, not traced.\n"
    "  evict --file F [--report]\n"
    "      Make F cold without touching other files' pages: fsync, then\n"
    "      fadvise(DONTNEED) on the whole file; fails (exit 1) if mincore still\n"
    "      finds more than 1% of its pages resident. --report prints\n"
    "      \"before_resident_pages=N after_resident_pages=N total_pages=M\".\n"
    "  residency --file F\n"
    "      Print \"resident_pages=N total_pages=M\" (mincore; changes nothing).\n"
    "  seq-read --file F [--chunk C=131072] [--direct]\n"
    "      Open F (O_DIRECT with --direct: C must be a multiple of 4096), read()\n"
    "      C bytes at a time until read returns 0, close.\n"
    "  reverse-aio-read --file F [--chunk C=65536]\n"
    "      Open F with O_DIRECT, fstat, and read it whole with one io_submit of\n"
    "      size/C reads, last chunk first (the block layer merges each at the\n"
    "      front of the previous one's request); wait for all, close.\n"
    "  mmap-scan --file F\n"
    "      Open, fstat, mmap the whole file (PROT_READ, MAP_SHARED), load one\n"
    "      byte of every 4096-byte page in order, munmap, close.\n"
    "  random-read --file F --count N [--size B=4096] [--seed S=1]\n"
    "              [--advice normal|random] [--evict-after]\n"
    "      Open, fstat, [fadvise(RANDOM)], N pread64 of B bytes at B-aligned\n"
    "      pseudo-random offsets (distinct while N <= size/B), [fadvise(DONTNEED)\n"
    "      on the whole file with --evict-after], close.\n"
    "  write-file --file F --size S [--chunk C=1048576] [--fsync]\n"
    "      Create or truncate F, write() S bytes in C-byte chunks (the content\n"
    "      of make-file --seed 1), [fsync], close.\n"
    "\n"
    "Numbers accept a k/m/g suffix (powers of 1024); --opt=value also works.\n"
    "Exit status: 0 success, 1 failure (message on stderr), 2 usage error.\n"
    "Only errors are printed, unless --report is given (residency always\n"
    "prints its line, attach-target its ready line).\n";

void print_usage(int fd) {
    size_t off = 0;
    while (off < sizeof kUsage - 1) {
        const ssize_t n = write(fd, kUsage + off, sizeof kUsage - 1 - off);
        if (n <= 0) return;
        off += static_cast<size_t>(n);
    }
}

bool wants_help(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) return true;
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    if (wants_help(argc, argv)) {
        print_usage(STDOUT_FILENO);
        return wl::kExitOk;
    }
    if (argc < 2) {
        print_usage(STDERR_FILENO);
        return wl::kExitUsage;
    }
    for (const Mode& m : kModes) {
        if (std::strcmp(argv[1], m.name) == 0) {
            wl::set_message_context(m.name);
            return m.run(argc - 2, argv + 2);
        }
    }
    wl::fail_usage("unknown mode '%s'", argv[1]);
}
