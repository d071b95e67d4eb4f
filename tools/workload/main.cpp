// iolens-workload: deterministic I/O workloads whose file syscalls are known
// exactly, for iolens's privileged tests and benchmarks. This file holds the
// table of modes: main() dispatches on it and --help is generated from it;
// docs/workload.md says what each mode guarantees.
//
// The binary is static (tools/CMakeLists.txt) and uses no stdio streams,
// iostreams or locale, so the only file syscalls a run makes are the ones
// its mode spells out.
#include "known.h"
#include "modes.h"
#include "util.h"

#include <cstring>
#include <string>
#include <string_view>
#include <unistd.h>

namespace {

struct Mode {
    const char* name;
    const char* synopsis;     // its options, as --help shows them
    const char* description;  // what it does; --help wraps it ('\n' starts a new line)
    int (*run)(int argc, char** argv);
    const char* group = nullptr;  // starts a group of modes in --help under this heading
    bool internal = false;        // exec'd by another mode: not in --help
};

constexpr Mode kModes[] = {
    {"make-dataset", "--dir D --files N --size BYTES [--seed S=1]",
     "Create D (if missing) and D/sample_000000.bin ... with deterministic content. Setup step, not meant to "
     "be "
     "traced.",
     wl::run_make_dataset, "modes"},
    {"dl",
     "--dir D --files N --size BYTES --epochs E --workers W [--read-size R=65536] [--compute-us U=200] "
     "[--seed S=1] "
     "[--markers [--steps K]] [--persistent-workers] [--drop-after] [--report]",
     "DataLoader-like input pipeline over a make-dataset dataset: each epoch shuffles (seed S+epoch), forks "
     "W "
     "workers that open, read (R-byte reads until EOF) and close their samples and send 16-byte messages "
     "over "
     "pipes; the main process spins U us per sample.\n"
     "--markers: main calls access(\"/.iolens/epoch/<e>\") at the start of each epoch e (0-based) and "
     "access(\"/.iolens/end\") at the end; --steps K adds access(\"/.iolens/step/<s>\") before every K-th "
     "sample "
     "(s counts from 0 over the whole run). --persistent-workers forks the W workers once and sends each "
     "epoch's "
     "assignment over a pipe. --drop-after drops each sample's pages (fadvise64 DONTNEED) after reading it. "
     "--report prints \"epochs= samples= elapsed_ns= digest=\".",
     wl::run_dl},
    {"ranks",
     "--dir D --files N --size BYTES --ranks R --workers W --epochs E [--markers [--steps K]] [--compute-us "
     "U=200] "
     "[--read-size R=65536] [--seed S=1] [--persistent-workers] [--straggler R0 [--straggler-factor F=2]] "
     "[--slow-rank R1 --slow-cgroup DIR] [--world W --rank-base B]",
     "A DDP-like job: forks R ranks, each exec'ing /proc/self/exe with RANK=r LOCAL_RANK=r WORLD_SIZE=R in "
     "its "
     "environment; rank r runs the dl pipeline (W workers) over the files i with i % R == r. Rank R0 loads "
     "each of "
     "its samples F times. The parent waits for all ranks.",
     wl::run_ranks},
    {"rank", "", "", wl::run_rank, nullptr, true},  // exec'd by `ranks`
    {"stall",
     "--file F --count N --size B --compute-us U [--prefetch [--depth D=4]] [--evict-first] [--direct] "
     "[--report]",
     "N pread64 of B bytes at offsets (i mod floor(size/B))*B, each followed by U us of compute in the main "
     "thread. "
     "Without --prefetch the main thread reads (an input stall); with it a second thread reads ahead into a "
     "D-buffer queue. --evict-first drops F's cached pages first (fadvise DONTNEED) so reads go to the "
     "device. "
     "--direct opens F with O_DIRECT (B a multiple of 4096): each read is a device round trip. --report "
     "prints "
     "\"reads= size= prefetch= elapsed_ns= main_wait_ns=\".",
     wl::run_stall},
    {"checkpoint", "--dir D --epochs E --size S [--compute-us U=0] [--markers]",
     "Per epoch e: spin U us, then create D/ckpt_<e>.bin, write() S bytes in 1 MiB chunks, fsync, close (all "
     "in "
     "the main thread).",
     wl::run_checkpoint},
    {"small-random", "--file F --count N [--size B=512] [--seed S=1]",
     "N pread64 of B bytes at pseudo-random byte offsets in [0, size-B].", wl::run_small_random},
    {"known", "--dir D",
     "Fixed multi-process scenario (main, a forked child, a fork+exec'd child) touching every syscall class, "
     "with "
     "errors and pipe traffic; tools/workload/known.h holds its exact counts. D must be empty or only used "
     "by this "
     "mode.",
     wl::run_known},
    {wl::known::kExecMode, "", "", wl::run_known_exec_child, nullptr, true},  // exec'd by `known`
    {"pread-loop", "--file F --count N [--size B=4096] [--threads T=1] [--report]",
     "Open F (created first if missing), T threads x N pread64(B bytes at offset 0), close. --report prints "
     "the "
     "timing on stdout.",
     wl::run_pread_loop},
    {"turn-read", "--file F [--threads T=2] [--chunk C=4096]",
     "Open and fstat F, then T threads read it front to back taking strict turns (the k-th pread64, of C "
     "bytes at "
     "k*C, by thread k mod T; the others spin meanwhile), close.",
     wl::run_turn_read},
    {"attach-target", "--file F --children C --reads K [--size B=4096] [--own-reads N]",
     "Print \"<pid> ready\", wait for SIGUSR1, then fork C children that each open F, make K pread64(B bytes "
     "at "
     "offset 0) and close it. --own-reads N: then open F, make N such reads, close it, print \"<pid> done\" "
     "and "
     "wait for a second SIGUSR1.",
     wl::run_attach_target},
    {"exit-code", "--code N", "Exit with status N (0-255).", wl::run_exit_code},
    {"kill-self", "--signal N", "Kill itself with signal N (a signal that terminates by default).",
     wl::run_kill_self},
    {"make-file", "--file F --size S [--seed N=1]",
     "Create or overwrite F with S bytes of deterministic content (1 MiB writes), fsync, close: F is then "
     "cached "
     "and clean. Setup, not traced.",
     wl::run_make_file, "page cache and block layer"},
    {"evict", "--file F [--report]",
     "Make F cold without touching other files' pages: fsync, then fadvise(DONTNEED) on the whole file; "
     "fails "
     "(exit 1) if mincore still finds more than 1% of its pages resident. --report prints "
     "\"before_resident_pages=N after_resident_pages=N total_pages=M\".",
     wl::run_evict},
    {"residency", "--file F", "Print \"resident_pages=N total_pages=M\" (mincore; changes nothing).",
     wl::run_residency},
    {"seq-read", "--file F [--chunk C=131072] [--direct]",
     "Open F (O_DIRECT with --direct: C must be a multiple of 4096), read() C bytes at a time until read "
     "returns "
     "0, close.",
     wl::run_seq_read},
    {"reverse-aio-read", "--file F [--chunk C=65536]",
     "Open F with O_DIRECT, fstat, and read it whole with one io_submit of size/C reads, last chunk first "
     "(the "
     "block layer merges each at the front of the previous one's request); wait for all, close.",
     wl::run_reverse_aio_read},
    {"mmap-scan", "--file F",
     "Open, fstat, mmap the whole file (PROT_READ, MAP_SHARED), load one byte of every 4096-byte page in "
     "order, "
     "munmap, close.",
     wl::run_mmap_scan},
    {"random-read",
     "--file F --count N [--size B=4096] [--seed S=1] [--advice normal|random] [--evict-after]",
     "Open, fstat, [fadvise(RANDOM)], N pread64 of B bytes at B-aligned pseudo-random offsets (distinct "
     "while N "
     "<= size/B), [fadvise(DONTNEED) on the whole file with --evict-after], close.",
     wl::run_random_read},
    {"head-read", "--dir D --files N [--size B=4096] [--evict]",
     "Over D/sample_000000.bin ... (make-dataset): openat, one read(B) at offset 0, close; with --evict "
     "instead openat, fdatasync, fadvise64(DONTNEED), close (setup: makes them cold).",
     wl::run_head_read},
    {"write-file", "--file F --size S [--chunk C=1048576] [--stride T] [--fsync] [--evict-after]",
     "Create or truncate F, write() S bytes in C-byte chunks (the content of make-file --seed 1), [fsync], "
     "close.",
     wl::run_write_file},
    {"copy",
     "--src F --dst G --via sendfile|copy_file_range|splice [--chunk C=65536] [--offsets] | --src F --via "
     "copy_file_range --within [--chunk C]",
     "Open F, fstat, create or truncate G, copy F into G with ceil(S/C) copy calls of C bytes (splice: two "
     "per "
     "chunk, F to a pipe and the pipe to G; C at most 65536), close G, close F (and the pipe). --offsets "
     "passes "
     "offset pointers instead of using the file positions.",
     wl::run_copy},
    {"aio", "--file F [--op read|write] [--chunk C=4096] [--depth D=8] [--direct]",
     "Open F (O_RDWR for --op write; O_DIRECT with --direct), fstat, io_setup(D), then S/C requests of C "
     "bytes "
     "in file order, D per io_submit, each batch reaped whole by io_getevents before the next (writes store "
     "0x5a bytes over F); io_destroy, close. S must be a multiple of C.",
     wl::run_aio},
    {"uring",
     "--file F [--op read|write] [--chunk C=4096] [--depth D=8] [--direct] [--fixed] [--vectored] "
     "[--ring-meta] [--sqpoll] [--async]",
     "Open F (O_RDWR for --op write; O_DIRECT with --direct), fstat, io_uring_setup(D) and map its rings "
     "(raw syscalls, no liburing), [register F as fixed file 0 with --fixed], then S/C IORING_OP_READ (or "
     "WRITE; READV/WRITEV of two iovecs with --vectored) requests of C bytes in file order, D per "
     "io_uring_enter, which waits for all D; close the ring, close F. With --ring-meta F is opened, "
     "stat'ed and closed by IORING_OP_OPENAT, STATX and CLOSE requests instead (the ring set up first). "
     "--sqpoll: the ring's SQPOLL thread submits; --async: every request goes to an io-wq worker "
     "(IOSQE_ASYNC). S must be a multiple of C.",
     wl::run_uring},
};

constexpr const char kUsageHead[] =
    "usage: iolens-workload <mode> [--option value ...]\n"
    "\n"
    "Deterministic I/O workloads whose file syscalls are known exactly\n"
    "(docs/workload.md gives the counts for each mode).\n";

constexpr const char kUsageTail[] =
    "\n"
    "Numbers accept a k/m/g suffix (powers of 1024); --opt=value also works.\n"
    "Exit status: 0 success, 1 failure (message on stderr), 2 usage error.\n"
    "Only errors are printed, unless --report is given (residency always\n"
    "prints its line, attach-target its ready line).\n";

constexpr size_t kHelpWidth = 78;

// Where `text` may be broken: at a space outside brackets and quotes (an
// option group such as "[--markers [--steps K]]" or a quoted output line stays
// whole), and in a synopsis only before the next option ("--size B" stays whole).
bool breaks_at(std::string_view text, size_t i, int depth, bool quoted, bool synopsis) {
    if (text[i] != ' ' || depth > 0 || quoted) return false;
    return !synopsis || (i + 1 < text.size() && (text[i + 1] == '-' || text[i + 1] == '['));
}

// Appends `text` filled to kHelpWidth, every line indented by `indent`
// spaces (the first one is already). A '\n' in text starts a new line.
void fill(std::string& out, std::string_view text, size_t indent, bool synopsis) {
    size_t col = indent;
    bool line_start = true;
    while (!text.empty()) {
        if (text.front() == '\n') {
            out += '\n';
            out.append(indent, ' ');
            col = indent;
            line_start = true;
            text.remove_prefix(1);
            continue;
        }
        // The next unbreakable piece.
        size_t end = 0;
        int depth = 0;
        bool quoted = false;
        for (; end < text.size() && text[end] != '\n' && !breaks_at(text, end, depth, quoted, synopsis);
             ++end) {
            depth += text[end] == '[' ? 1 : text[end] == ']' ? -1 : 0;
            quoted = text[end] == '"' ? !quoted : quoted;
        }
        const std::string_view piece = text.substr(0, end);
        if (!line_start && col + 1 + piece.size() > kHelpWidth) {
            out += '\n';
            out.append(indent, ' ');
            col = indent;
        } else if (!line_start) {
            out += ' ';
            ++col;
        }
        out += piece;
        col += piece.size();
        line_start = false;
        text.remove_prefix(end);
        if (!text.empty() && text.front() == ' ') text.remove_prefix(1);
    }
    out += '\n';
}

std::string usage() {
    std::string out = kUsageHead;
    for (const Mode& m : kModes) {
        if (m.internal) continue;
        if (m.group) out += std::string("\n") + m.group + ":\n";
        const std::string head = std::string("  ") + m.name;
        out += head;
        if (*m.synopsis) {
            out += ' ';
            fill(out, m.synopsis, head.size() + 1, true);
        } else {
            out += '\n';
        }
        out.append(6, ' ');
        fill(out, m.description, 6, false);
    }
    return out + kUsageTail;
}

void print_usage(int fd) {
    const std::string text = usage();
    size_t off = 0;
    while (off < text.size()) {
        const ssize_t n = write(fd, text.data() + off, text.size() - off);
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
