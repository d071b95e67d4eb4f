#include "cli/record_command.h"

#include <spdlog/spdlog.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "analysis/summarize.h"
#include "capture/cgroup.h"
#include "capture/node.h"
#include "capture/output_template.h"
#include "capture/process_env.h"
#include "cli/commands.h"
#include "cli/live_model.h"
#include "cli/output.h"
#include "probes/features.h"
#include "model/rank_env.h"
#include "util/clock.h"
#include "util/errno_text.h"
#include "util/output_file.h"

namespace iolens::cli {

constexpr const char* kDefaultStacks = "first,1/64";

Result<probes::ProbeOptions::Stacks> parse_stacks_spec(const std::string& spec) {
    probes::ProbeOptions::Stacks st;
    st.enabled = true;
    st.first = false;
    st.period = 0;
    const auto bad = [&](const std::string& why) {
        return make_error("--stacks=" + spec + ": " + why +
                          " (give first, all or 1/N, comma-separated: e.g. --stacks=first,1/64)");
    };
    size_t pos = 0;
    while (pos <= spec.size()) {
        const size_t comma = spec.find(',', pos);
        const std::string item =
            spec.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        pos = comma == std::string::npos ? spec.size() + 1 : comma + 1;
        if (item == "first") {
            st.first = true;
        } else if (item == "all") {
            st.period = 1;
        } else if (item.rfind("1/", 0) == 0) {
            char* end = nullptr;
            const unsigned long n = std::strtoul(item.c_str() + 2, &end, 10);
            if (item.size() == 2 || *end || n < 1 || n > (1u << 30)) return bad("'" + item + "' is not 1/N");
            st.period = static_cast<uint32_t>(n);
        } else {
            return bad(item.empty() ? "an empty item" : "unknown item '" + item + "'");
        }
    }
    if (!st.first && st.period == 0) return bad("no call would get a stack");
    return st;
}

Result<capture::RecordOptions> validate_record(const RecordCliOptions& cli) {
    capture::RecordOptions o;
    if (!cli.command.empty() && cli.pid != 0)
        return make_error("give either a command to run or -p PID, not both");
    if (!cli.cgroup.empty() && (cli.pid != 0 || !cli.command.empty()))
        return make_error("give one of a command, -p PID or --cgroup, not several");
    if (cli.command.empty() && cli.pid == 0 && cli.cgroup.empty())
        return make_error(
            "nothing to trace: give a command (iolens record -- CMD ARGS), -p PID or --cgroup PATH");
    if (!cli.cgroup.empty()) {
        auto cg = capture::resolve_cgroup(cli.cgroup);
        if (!cg) return cg.error();
        o.cgroup = *cg;
        o.probe.target_cgroup = cg->id;
    }
    if (cli.pid < 0 || cli.pid > 0x3fffffff) return make_error("invalid pid " + std::to_string(cli.pid));
    if (cli.pid) o.pid = static_cast<pid_t>(cli.pid);
    o.command = cli.command;
    if (!cli.duration.empty()) {
        auto d = parse_duration(cli.duration);
        if (!d) return d.error();
        o.duration_ns = *d;
    }
    if (cli.output.empty()) return make_error("empty output path (-o)");
    if (auto job = capture::job_id_from_env()) {
        o.job_id = job->id;
        o.job_id_source = job->source;
    }
    std::string output = cli.output;
    if (capture::has_template(cli.output)) {
        // The first rank: the launched command's (it inherits this
        // environment) or the -p target's, by the variables the report reads.
        auto names = model::rank_variables();
        if (!cli.out.rank_env.empty()) names.insert(names.begin(), cli.out.rank_env);
        const auto vars = capture::read_env_vars(cli.pid ? static_cast<pid_t>(cli.pid) : getpid(), names);
        const auto rank = model::parse_rank_env(vars, cli.out.rank_env).rank;
        capture::TemplateFacts facts{capture::host_name(), o.job_id, rank ? std::to_string(*rank) : "",
                                     static_cast<uint64_t>(getpid()), clock_ns(CLOCK_REALTIME)};
        auto expanded = capture::expand_output_template(cli.output, facts);
        if (!expanded) return expanded.error();
        output = *expanded;
        // One directory level may be the template's own (job-%j/%h.iolens):
        // made if missing, by whichever node gets there first.
        const auto slash = output.rfind('/');
        if (slash != std::string::npos && slash > 0) {
            const std::string dir = output.substr(0, slash);
            if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
                return errno_error("cannot create the directory " + dir + " for -o " + cli.output);
        }
    }
    if (!cli.out.json_path.empty() && same_file(cli.out.json_path, output))
        return make_error("--json " + cli.out.json_path + " and the recording " + output +
                          " are the same file: give the JSON report a name of its own");
    if (!cli.out.html_path.empty() && same_file(cli.out.html_path, output))
        return make_error("--html " + cli.out.html_path + " and the recording " + output +
                          " are the same file: give the HTML report a name of its own");
    o.output_path = output;
    o.force = cli.force;
    o.drop_caches = cli.drop_caches;
    o.rank_env = cli.out.rank_env;
    if (cli.ringbuf_mib < 1 || cli.ringbuf_mib > 1024 || (cli.ringbuf_mib & (cli.ringbuf_mib - 1)))
        return make_error("--ringbuf-mib must be a power of two between 1 and 1024");
    o.probe.ringbuf_bytes = uint64_t{cli.ringbuf_mib} << 20;
    if (!cli.force_hook.empty() && cli.force_hook != "tp_btf" && cli.force_hook != "raw_tp")
        return make_error("--force-hook must be tp_btf or raw_tp, not '" + cli.force_hook + "'");
    o.probe.force_hook = cli.force_hook;
    if (!cli.force_variant.empty() && cli.force_variant != "direct" && cli.force_variant != "standard" &&
        cli.force_variant != "legacy")
        return make_error("--force-variant must be direct, standard or legacy, not '" + cli.force_variant +
                          "'");
    o.probe.force_variant = cli.force_variant;
    if (cli.bpf_stats != "sampled" && cli.bpf_stats != "always" && cli.bpf_stats != "off")
        return make_error("--bpf-stats must be sampled, always or off, not '" + cli.bpf_stats + "'");
    o.bpf_stats = cli.bpf_stats;
    if (!cli.stacks.empty()) {
        // A bare --stacks (CLI11 gives the flag's default, "on").
        const std::string spec = cli.stacks == "on" ? std::string(kDefaultStacks) : cli.stacks;
        auto st = parse_stacks_spec(spec);
        if (!st) return st.error();
        o.probe.stacks = *st;
        o.stacks_spec = spec;
    }
    return o;
}

void register_record(CLI::App& app, Action& action) {
    auto opts = std::make_shared<RecordCliOptions>();
    auto* sub = app.add_subcommand(
        "record", "Trace a command (after --), a running process tree (-p) or a cgroup v2 group (--cgroup)");
    sub->add_option("-p,--pid", opts->pid, "Attach to this process and every process it starts")
        ->check(whole_number(1, 0x3fffffff));
    sub->add_option(
           "--cgroup", opts->cgroup,
           "Trace every process of this cgroup v2 group (a directory on a cgroup2 mount, absolute or "
           "relative to the mount, or a cgroup id) and every process that joins it later; stops when "
           "the group is empty again or removed")
        ->type_name("PATH|ID")
        ->check(not_empty());
    sub->add_option("-d,--duration", opts->duration, "Stop after this long (e.g. 30s, 5m)")
        ->type_name("DURATION")
        ->check(not_empty());
    sub->add_option("-o,--output", opts->output,
                    "Recording file to write; %h host, %j job id (SLURM_JOB_ID, PBS_JOBID, LSB_JOBID, "
                    "FLUX_JOB_ID), %r first rank, %p iolens's pid, %t start time (UTC), %% a percent sign")
        ->type_name("FILE")
        ->capture_default_str();
    sub->add_flag("-f,--force", opts->force, "Replace an existing recording file");
    sub->add_flag("--drop-caches", opts->drop_caches,
                  "Sync and drop the page cache before tracing (test nodes: measures a cold run)");
    add_output_options(
        sub, opts->out,
        "Environment variable holding each process's rank (before RANK, OMPI_COMM_WORLD_RANK, ...)");
    sub->add_flag("--live", opts->live,
                  "Show iolens top's header line on stderr every second while recording (rates, hit ratio, "
                  "devices, losses)");
    sub->add_flag("--stacks{on}", opts->stacks,
                  "Take the user stacks of file-I/O calls, for the report's call sites: --stacks takes each "
                  "thread's first call on each file and one call in 64 (first,1/64); --stacks=SPEC chooses "
                  "(first, all, 1/N, comma-separated; docs/call-sites.md)")
        ->type_name("SPEC");
    sub->add_option("--ringbuf-mib", opts->ringbuf_mib,
                    "Kernel ring buffer size in MiB (a power of two, 1 to 1024)")
        ->capture_default_str()
        ->check(whole_number(1, 1024));
    // Hidden (empty group): for testing the fallback hooks on a kernel that
    // has the preferred ones.
    sub->add_option("--force-hook", opts->force_hook, "Use only tp_btf or raw_tp hooks")->group("");
    sub->add_option("--force-variant", opts->force_variant, "Use only this build of the BPF programs")
        ->group("");
    sub->add_option("--bpf-stats", opts->bpf_stats,
                    "Time the BPF programs: sampled (default: the programs time 1 run in 64), "
                    "always (the kernel's statistics, every run: exact, costly), off")
        ->group("");
    sub->add_option("command", opts->command, "The command to run and trace")
        ->type_name("COMMAND")
        ->take_all();
    sub->footer(
        "Examples:\n  iolens record -- python train.py --epochs 3\n  iolens record -p 4242 -d 60s\n\n"
        "Exit status: the traced command's (127 if it cannot be started); 1 when iolens itself failed\n"
        "(also after a command that exited 0), 2 for a usage error.");
    sub->callback([opts, &action]() {
        action = [opts]() -> int {
            // steady_clock is CLOCK_MONOTONIC, the clock of the capture.
            const auto started = std::chrono::steady_clock::now().time_since_epoch();
            auto options = validate_record(*opts);
            if (!options) {
                spdlog::error("{}", options.error().message);
                return 2;
            }
            options->started_mono_ns =
                static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(started).count());
            auto features = probes::Features::probe();
            if (!features.can_trace()) {
                spdlog::error(
                    "iolens record needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN): run it as root");
                return 1;
            }
            // The outputs before anything runs: a bad path must not cost a run.
            OutputOptions out = opts->out;
            out.force = opts->force;
            if (auto r = check_output_path(options->output_path, options->force, "the recording"); !r) {
                spdlog::error("{}", r.error().message);
                return 2;
            }
            if (auto r = check_outputs(out, options->output_path); !r) {
                spdlog::error("{}", r.error().message);
                return 2;
            }
            // --live: the live model of `iolens top`, one header line a second
            // (rewritten in place on a terminal, one line each otherwise).
            LiveModel live;
            const bool tty = isatty(STDERR_FILENO);
            if (opts->live) {
                options->chunk_observer = [&live](recording::ChunkType t, std::span<const std::byte> p) {
                    live.on_chunk(t, p);
                };
                options->on_tick = [&live, tty](const capture::RecordOptions::LiveStatus& s, std::string&) {
                    if (!live.started()) live.start(s.now_ns);
                    if (s.now_ns - live.last_snapshot_ns() < 1'000'000'000) return false;
                    const std::string line = live_line(live.snapshot(s.now_ns, &s, analysis::TopView::Ranks));
                    std::fprintf(stderr, tty ? "\r\x1b[K%s" : "%s\n", line.c_str());
                    std::fflush(stderr);
                    return false;
                };
            }
            auto outcome = capture::run_record(*options, features);
            if (opts->live && tty && live.has_frame()) std::fputs("\n", stderr);
            if (!outcome) {
                spdlog::error("{}", outcome.error().message);
                return outcome.error().exit_status;
            }
            spdlog::info("recording written to {}", outcome->recording_path);
            // From here the command has run: its exit status is what record
            // exits with. iolens's own failures are said on stderr, and turn
            // a successful command's 0 into 1 so that they are not missed.
            const auto status = [&](bool iolens_ok) {
                return outcome->exit_status != 0 || iolens_ok ? outcome->exit_status : 1;
            };
            auto report = analysis::summarize(outcome->recording_path, builder_options(opts->out));
            if (!report) {
                spdlog::error("cannot read back the recording {}: {}", outcome->recording_path,
                              report.error().message);
                return status(false);
            }
            if (auto r = emit_report(*report, out); !r) {
                spdlog::error("{}", r.error().message);
                return status(false);
            }
            return status(!outcome->incomplete);
        };
    });
}

}  // namespace iolens::cli
