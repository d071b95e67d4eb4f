// ranks: a multi-process (torchrun/DDP-like) job. The parent forks R rank
// processes, each exec'ing this binary again (/proc/self/exe, internal mode
// "rank") with RANK=r, LOCAL_RANK=r and WORLD_SIZE=R in its environment
// (execve's envp, so /proc/PID/environ shows them). Rank r runs the dl
// pipeline (pipeline.h) over its own share of the dataset, the files i with
// i % R == r (with --world W --rank-base B, this node's share of a job of W
// ranks: local rank r is rank B+r and reads the files i % W == B+r); with --straggler r0 --straggler-factor
// F, rank r0 loads every one of its samples F times. With --slow-rank r1 --slow-cgroup DIR, rank r1 joins the
// cgroup DIR (v1 or v2: "0" written to DIR/cgroup.procs) between fork and exec: the diagnosis suite's slow
// storage path is a blkio/io.max throttled cgroup. That adds one open, one 1-byte write and one close of
// DIR/cgroup.procs to rank r1's calls (before its exec).
//
// Exact file syscalls: docs/workload.md ("ranks"). The parent makes none.
#include "args.h"
#include "modes.h"
#include "pipeline.h"
#include "util.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern char** environ;

namespace wl {

namespace {

// Both modes accept the same options: the parent passes its words through.
const std::initializer_list<OptionSpec> kRankOptions = {{"dir", true},       {"files", true},
                                                        {"size", true},      {"ranks", true},
                                                        {"workers", true},   {"epochs", true},
                                                        {"read-size", true}, {"compute-us", true},
                                                        {"seed", true},      {"markers", false},
                                                        {"steps", true},     {"persistent-workers", false},
                                                        {"straggler", true}, {"straggler-factor", true},
                                                        {"slow-rank", true}, {"slow-cgroup", true},
                                                        {"world", true},     {"rank-base", true}};

struct RankOptions {
    uint32_t ranks;  // started here (local ranks 0..ranks-1)
    uint32_t world;  // in the whole job (--world; default ranks)
    uint32_t base;   // the global rank of local rank 0 (--rank-base; default 0)
    bool straggler;
    uint32_t straggler_rank;
    uint32_t factor;
    bool slow;
    uint32_t slow_rank;
    std::string slow_procs;  // DIR/cgroup.procs
    PipelineConfig pipe;
    uint32_t files;
};

RankOptions parse(const Args& args) {
    RankOptions o;
    o.pipe.dir = args.text("dir");
    o.files = static_cast<uint32_t>(args.number("files", 1, 10'000'000));
    o.pipe.size = args.number("size", 0, uint64_t{1} << 40);
    o.ranks = static_cast<uint32_t>(args.number("ranks", 1, 256));
    o.world = static_cast<uint32_t>(args.number_or("world", o.ranks, 1, 65536));
    o.base = static_cast<uint32_t>(args.number_or("rank-base", 0, 0, 65535));
    if (o.base + o.ranks > o.world) fail_usage("--rank-base + --ranks is above --world");
    o.pipe.workers = static_cast<uint32_t>(args.number("workers", 1, 256));
    o.pipe.epochs = args.number("epochs", 1, 1'000'000);
    o.pipe.read_size = args.number_or("read-size", 65536, 1, uint64_t{1} << 30);
    o.pipe.compute_ns = args.number_or("compute-us", 200, 0, 60'000'000) * 1000;
    o.pipe.seed = args.number_or("seed", 1, 0, UINT64_MAX);
    o.pipe.markers = args.flag("markers");
    o.pipe.steps = args.number_or("steps", 0, 1, 10'000'000);
    if (o.pipe.steps != 0 && !o.pipe.markers) fail_usage("--steps needs --markers");
    o.pipe.persistent = args.flag("persistent-workers");
    o.straggler = args.text_or("straggler", nullptr) != nullptr;
    o.straggler_rank = static_cast<uint32_t>(args.number_or("straggler", 0, 0, o.world - 1));
    o.factor = static_cast<uint32_t>(args.number_or("straggler-factor", 2, 1, 1000));
    if (!o.straggler && args.text_or("straggler-factor", nullptr))
        fail_usage("--straggler-factor needs --straggler");
    const char* cg = args.text_or("slow-cgroup", nullptr);
    o.slow = cg != nullptr;
    o.slow_rank = static_cast<uint32_t>(args.number_or("slow-rank", 0, 0, o.ranks - 1));
    if (o.slow) o.slow_procs = std::string(cg) + "/cgroup.procs";
    if (!o.slow && args.text_or("slow-rank", nullptr)) fail_usage("--slow-rank needs --slow-cgroup");
    return o;
}

bool is_rank_variable(const char* entry) {
    for (const char* name : {"RANK=", "LOCAL_RANK=", "WORLD_SIZE="})
        if (std::strncmp(entry, name, std::strlen(name)) == 0) return true;
    return false;
}

uint64_t env_number(const char* name) {
    const char* v = getenv(name);  // no syscall: environ is in memory
    if (!v || *v < '0' || *v > '9')
        fail("%s is not set to a number (the rank mode is started by 'ranks')", name);
    char* end = nullptr;
    const unsigned long long n = std::strtoull(v, &end, 10);
    if (*end != '\0') fail("%s=%s is not a number", name, v);
    return n;
}

}  // namespace

int run_ranks(int argc, char** argv) {
    const Args args(kRankOptions, argc, argv);
    const RankOptions o = parse(args);

    // Every argv and envp is built before the first fork: a child only execs.
    std::vector<std::string> base_env;
    for (char** e = environ; e && *e; ++e)
        if (!is_rank_variable(*e)) base_env.emplace_back(*e);
    std::vector<std::vector<std::string>> env_text(o.ranks, base_env);
    std::vector<std::vector<char*>> envp(o.ranks);
    for (uint32_t r = 0; r < o.ranks; ++r) {
        env_text[r].push_back("RANK=" + std::to_string(o.base + r));
        env_text[r].push_back("LOCAL_RANK=" + std::to_string(r));
        env_text[r].push_back("WORLD_SIZE=" + std::to_string(o.world));
        for (auto& s : env_text[r]) envp[r].push_back(s.data());
        envp[r].push_back(nullptr);
    }
    std::string self = "iolens-workload", mode = "rank";
    std::vector<char*> child_argv{self.data(), mode.data()};
    for (int i = 0; i < argc; ++i) child_argv.push_back(argv[i]);
    child_argv.push_back(nullptr);

    std::vector<pid_t> pids(o.ranks);
    for (uint32_t r = 0; r < o.ranks; ++r) {
        pids[r] = fork();
        if (pids[r] < 0) fail_errno(errno, "cannot fork rank %u", r);
        if (pids[r] == 0) {
            if (o.slow && r == o.slow_rank) {
                const int fd = open(o.slow_procs.c_str(), O_WRONLY | O_CLOEXEC);
                if (fd < 0 || write(fd, "0", 1) != 1)
                    fail_errno(errno, "rank %u: cannot join the cgroup %s", r, o.slow_procs.c_str());
                close(fd);
            }
            execve("/proc/self/exe", child_argv.data(), envp[r].data());
            fail_errno(errno, "rank %u: cannot exec /proc/self/exe", r);
        }
    }
    for (uint32_t r = 0; r < o.ranks; ++r) wait_for_success(pids[r], "a rank");
    return kExitOk;
}

int run_rank(int argc, char** argv) {
    const Args args(kRankOptions, argc, argv);
    RankOptions o = parse(args);
    const uint64_t rank = env_number("RANK");
    const uint64_t world = env_number("WORLD_SIZE");
    env_number("LOCAL_RANK");
    if (world != o.world)
        fail("WORLD_SIZE=%llu but --world %u", static_cast<unsigned long long>(world), o.world);
    if (rank >= world)
        fail("RANK=%llu is not below WORLD_SIZE=%llu", static_cast<unsigned long long>(rank),
             static_cast<unsigned long long>(world));
    for (uint32_t i = static_cast<uint32_t>(rank); i < o.files; i += o.world) o.pipe.share.push_back(i);
    if (o.straggler && rank == o.straggler_rank) o.pipe.repeat = o.factor;
    run_pipeline(o.pipe);
    return kExitOk;
}

}  // namespace wl
