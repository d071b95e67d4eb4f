#include "capture/record_session.h"

#include <bpf/libbpf.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <set>

#include "capture/launcher.h"
#include "capture/process_env.h"
#include "capture/process_scan.h"
#include "capture/ring_reader.h"
#include "capture/self_cost.h"
#include "recording/capture_json.h"
#include "model/rank_env.h"
#include "model/replay.h"
#include "probes/run_stats.h"
#include "recording/recording.h"

namespace iolens::capture {

namespace {

constexpr int kPollMs = 50;                 // drain at least this often (wake-ups are batched)
constexpr uint64_t kFlushEveryNs = 1'000'000'000;  // a killed recorder loses at most ~1 s

uint64_t clock_ns(clockid_t clock)
{
    timespec ts{};
    clock_gettime(clock, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

std::string hostname()
{
    char buf[256] = {};
    gethostname(buf, sizeof(buf) - 1);
    return buf;
}

int shell_status(int wstatus)
{
    if (WIFEXITED(wstatus))
        return WEXITSTATUS(wstatus);
    if (WIFSIGNALED(wstatus))
        return 128 + WTERMSIG(wstatus);
    return 1;
}

// Owns a file descriptor.
struct Fd {
    int fd = -1;
    explicit Fd(int f = -1) : fd(f) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd()
    {
        if (fd >= 0)
            close(fd);
    }
};

// Restores the signal mask on every exit path.
struct BlockedSignals {
    sigset_t old{};
    explicit BlockedSignals(const sigset_t& set) { sigprocmask(SIG_BLOCK, &set, &old); }
    ~BlockedSignals()
    {
        // Drop anything still pending so it doesn't fire after we unblock.
        sigset_t pending;
        sigpending(&pending);
        struct timespec zero {};
        sigset_t ours;
        sigemptyset(&ours);
        for (int s : {SIGINT, SIGTERM, SIGHUP})
            if (sigismember(&pending, s))
                sigaddset(&ours, s);
        while (sigtimedwait(&ours, nullptr, &zero) > 0) {
        }
        sigprocmask(SIG_SETMASK, &old, nullptr);
    }
};

// Removes a file on scope exit unless told to keep it.
struct UnlinkUnlessKept {
    std::string path;
    bool keep = false;
    ~UnlinkUnlessKept()
    {
        if (!keep)
            unlink(path.c_str());
    }
};

// Everything the ring-buffer callback touches.
struct Stream {
    uint64_t records = 0;
    std::set<uint32_t> live;  // processes of the target still running (-p mode)
    std::set<uint32_t> devices;  // block devices seen, named at the end
    std::vector<uint32_t> exec_pending;  // exec'd processes whose rank environment to read
    recording::Writer* writer = nullptr;
    std::string error;  // first write error; recording stops on it
};

// Notes what the recorder must act on while the job runs.
void note_record(Stream* s, const iolens_rec_hdr* hdr, size_t size)
{
    if (hdr->type == IOLENS_REC_FORK && size >= sizeof(iolens_proc_rec))
        s->live.insert(reinterpret_cast<const iolens_proc_rec*>(hdr)->pid);
    else if (hdr->type == IOLENS_REC_EXIT && size >= sizeof(iolens_proc_rec))
        s->live.erase(reinterpret_cast<const iolens_proc_rec*>(hdr)->pid);
    else if (hdr->type == IOLENS_REC_EXEC && size >= offsetof(iolens_exec_rec, args))
        s->exec_pending.push_back(reinterpret_cast<const iolens_exec_rec*>(hdr)->pid);
    else if (hdr->type == IOLENS_REC_BLOCK && size >= sizeof(iolens_block_rec))
        s->devices.insert(reinterpret_cast<const iolens_block_rec*>(hdr)->dev);
}

// One ring-buffer sample: one record, or a thread's batch of records back to
// back (bpf/call_batch.bpf.h), each sized by its header. The file takes them
// as they are; each record is counted and looked at.
void on_sample(Stream* s, const void* data, size_t size)
{
    const auto* bytes = static_cast<const std::byte*>(data);
    size_t off = 0;
    do {
        s->records++;
        if (size - off < sizeof(iolens_rec_hdr))
            break;  // malformed: the file keeps it, the report will say so
        const auto* hdr = reinterpret_cast<const iolens_rec_hdr*>(bytes + off);
        const size_t len = std::min<size_t>(hdr->size, size - off);
        note_record(s, hdr, len);
        if (hdr->size < sizeof(iolens_rec_hdr))
            break;
        off += len;
    } while (off < size);
    // The writer buffers records into chunks itself.
    if (auto r = s->writer->append_records({bytes, size}); !r && s->error.empty())
        s->error = r.error().message;
}

Result<void> write_json(recording::Writer& w, recording::ChunkType type, const nlohmann::json& j)
{
    return w.write_json_chunk(type, j.dump());
}

// "vda" for a kernel dev_t, from /sys/dev/block/MAJ:MIN/uevent; "MAJ:MIN"
// if the device is gone.
std::string block_device_name(uint32_t dev)
{
    const std::string id = std::to_string(dev >> 20) + ":" + std::to_string(dev & 0xfffff);
    std::ifstream in("/sys/dev/block/" + id + "/uevent");
    for (std::string line; std::getline(in, line);)
        if (line.rfind("DEVNAME=", 0) == 0)
            return line.substr(8);
    return id;
}

// Writes dirty pages back, then drops clean page cache, dentries and inodes,
// so what the traced job reads comes from the device.
Result<void> drop_page_cache()
{
    sync();
    std::ofstream out("/proc/sys/vm/drop_caches");
    out << "3\n";
    out.flush();
    if (!out)
        return make_error(std::string("cannot drop the page cache (/proc/sys/vm/drop_caches): ") +
                          std::strerror(errno));
    return {};
}

// Records the rank-related environment of a process (never the rest of it).
Result<void> write_env(recording::Writer& w, pid_t pid, const std::string& extra_var)
{
    std::vector<std::string> names = model::rank_env_variables();
    if (!extra_var.empty())
        names.push_back(extra_var);
    auto vars = read_env_vars(pid, names);
    if (vars.empty())
        return {};
    return write_json(w, recording::ChunkType::Env, {{"pid", pid}, {"vars", vars}});
}

}  // namespace

Result<RecordOutcome> run_record(const RecordOptions& opt, const probes::Features& features)
{
    const uint64_t started_mono = opt.started_mono_ns ? opt.started_mono_ns : clock_ns(CLOCK_MONOTONIC);
    if (!features.can_trace())
        return make_error("iolens record needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN): run it as root");
    if (opt.pid && !process_exists(*opt.pid))
        return make_error("no process with pid " + std::to_string(*opt.pid));
    if (opt.pid && *opt.pid == getpid())
        return make_error("pid " + std::to_string(*opt.pid) + " is this iolens itself");

    // The output file first: a bad path must fail before anything runs.
    recording::WriterOptions wopt;
    wopt.force = opt.force;
    auto writer_or = recording::Writer::create(opt.output_path, wopt);
    if (!writer_or)
        return writer_or.error();
    auto& writer = *writer_or.value();
    // Until tracing is live, a failure removes the file we just created
    // rather than leave a recording with nothing in it.
    UnlinkUnlessKept output_guard{opt.output_path};

    sigset_t sigs;
    sigemptyset(&sigs);
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGCHLD})
        sigaddset(&sigs, s);
    BlockedSignals blocked(sigs);
    Fd sigfd(signalfd(-1, &sigs, SFD_CLOEXEC | SFD_NONBLOCK));
    if (sigfd.fd < 0)
        return make_error(std::string("cannot create a signalfd: ") + std::strerror(errno));

    auto probes_or = probes::ProbeSet::load(features, opt.probe);
    if (!probes_or)
        return probes_or.error();
    auto& probes = *probes_or.value();

    std::optional<Launcher> launcher;
    std::vector<pid_t> targets;
    if (!opt.command.empty()) {
        auto l = Launcher::fork_gated(opt.command);
        if (!l)
            return l.error();
        launcher.emplace(std::move(l.value()));
        targets.push_back(launcher->pid());
        probes.tracked().add(static_cast<uint32_t>(launcher->pid()));
    } else {
        for (pid_t p : process_tree(*opt.pid))
            if (p != getpid())  // `iolens record -p $$` puts us in the tree: never trace ourselves
                probes.tracked().add(static_cast<uint32_t>(p));
    }

    model::BuilderOptions bopt;
    bopt.max_files = opt.max_files;
    bopt.rank_env_override = opt.rank_env;
    Stream stream;
    stream.writer = &writer;
    auto ring_or = RingReader::open(probes.ringbuf_fd());
    if (!ring_or)
        return ring_or.error();
    RingReader& ring = *ring_or.value();
    const RingReader::Callback to_stream = [&stream](const void* data, size_t size) {
        on_sample(&stream, data, size);
    };

    if (opt.drop_caches) {
        if (auto r = drop_page_cache(); !r)
            return r.error();
        spdlog::info("page cache dropped: this run starts cold");
    }
    if (auto r = probes.attach(); !r)
        return r.error();
    const uint64_t attach_mono = clock_ns(CLOCK_MONOTONIC);
    // The recorder's cost is what it spends while the job is traced: loading
    // and attaching the probes happen before the job runs (attach_ns).
    const uint64_t cpu_at_attach = self_usage().cpu_ns;
    probes::RunStats run_stats;  // sampled windows from now on
    if (opt.bpf_stats != "off" && !run_stats.start(attach_mono, opt.bpf_stats == "always"))
        spdlog::debug("{}", run_stats.unavailable());
    // -p: the target's CPU time so far, subtracted at the end.
    const std::optional<uint64_t> target_cpu_at_attach = opt.pid ? process_cpu_ns(*opt.pid) : std::nullopt;

    // Processes known at attach time. With -p, children forked while we were
    // scanning are already caught by the fork probe if their parent was
    // tracked; rescan until the tree is stable to catch the rest.
    std::vector<recording::ProcessInfo> initial;
    if (launcher) {
        recording::ProcessInfo info;
        info.pid = static_cast<uint32_t>(launcher->pid());
        info.ppid = static_cast<uint32_t>(getpid());
        info.cmdline = opt.command;
        info.comm = opt.command[0].substr(opt.command[0].rfind('/') + 1).substr(0, 15);
        info.start_ns = attach_mono;
        initial.push_back(info);
    } else {
        std::set<pid_t> seen;
        for (int round = 0; round < 5; round++) {
            bool grew = false;
            for (pid_t p : process_tree(*opt.pid)) {
                if (p != getpid() && seen.insert(p).second) {
                    grew = true;
                    probes.tracked().add(static_cast<uint32_t>(p));
                    if (auto info = read_process(p))
                        initial.push_back(*info);
                }
            }
            if (!grew)
                break;
        }
        targets.push_back(*opt.pid);  // the pid the user named; the rest are its tree
        for (pid_t p : seen)
            stream.live.insert(static_cast<uint32_t>(p));
    }

    recording::CaptureInfo capture;
    capture.command = opt.command;
    for (pid_t p : targets)
        capture.pids.push_back(static_cast<uint32_t>(p));
    capture.start_unix_ns = clock_ns(CLOCK_REALTIME);
    capture.start_mono_ns = attach_mono;
    capture.probes = probes.statuses();
    capture.hostname = hostname();
    capture.kernel_release = features.kernel_release;
    capture.iolens_version = IOLENS_VERSION_STRING;
    if (auto r = write_json(writer, recording::ChunkType::Meta, recording::capture_to_json(capture)); !r)
        return r.error();
    for (const auto& info : initial)
        if (auto r = write_json(writer, recording::ChunkType::Process, recording::process_to_json(info)); !r)
            return r.error();
    if (!launcher)  // processes that exist at attach; a launched command is read at its exec
        for (const auto& info : initial)
            if (auto r = write_env(writer, static_cast<pid_t>(info.pid), opt.rank_env); !r)
                return r.error();

    Fd child_pidfd;
    if (launcher) {
        child_pidfd.fd = static_cast<int>(syscall(SYS_pidfd_open, launcher->pid(), 0));
        if (auto r = launcher->release(); !r) {
            int st = 0;
            waitpid(launcher->pid(), &st, 0);
            // The error is the user's (command not found): 127/126 like a shell.
            return Error{r.error().message, shell_status(st)};
        }
        spdlog::info("tracing live: {} (pid {})", opt.command[0], launcher->pid());
        output_guard.keep = true;  // the command runs: whatever happens now is worth keeping
    } else {
        spdlog::info("tracing live: pid {} and its {} descendant(s)", *opt.pid, stream.live.size() - 1);
        output_guard.keep = true;
    }

    Fd ep(epoll_create1(EPOLL_CLOEXEC));
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u32 = 1;
    epoll_ctl(ep.fd, EPOLL_CTL_ADD, ring.poll_fd(), &ev);
    ev.data.u32 = 2;
    epoll_ctl(ep.fd, EPOLL_CTL_ADD, sigfd.fd, &ev);
    if (child_pidfd.fd >= 0) {
        ev.data.u32 = 3;
        epoll_ctl(ep.fd, EPOLL_CTL_ADD, child_pidfd.fd, &ev);
    }

    std::optional<int> child_status;
    auto reap_child = [&]() {
        int st = 0;
        if (launcher && !child_status && waitpid(launcher->pid(), &st, WNOHANG) == launcher->pid())
            child_status = shell_status(st);
    };
    const uint64_t deadline = opt.duration_ns ? attach_mono + *opt.duration_ns : UINT64_MAX;
    uint64_t last_flush = attach_mono, last_liveness = attach_mono;
    std::string stop_reason;
    bool stop = false;
    while (!stop) {
        epoll_event events[4];
        int n = epoll_wait(ep.fd, events, 4, kPollMs);
        ring.consume(to_stream);
        for (int i = 0; i < n; i++) {
            if (events[i].data.u32 == 2) {
                signalfd_siginfo si{};
                while (read(sigfd.fd, &si, sizeof(si)) == sizeof(si)) {
                    if (si.ssi_signo == SIGCHLD) {
                        reap_child();
                        continue;
                    }
                    if (launcher && !child_status) {
                        // A signal from the terminal reached the command too; one
                        // sent to us alone (kill) is passed on. Either way we keep
                        // recording until the command is gone.
                        if (si.ssi_code == SI_USER || si.ssi_code == SI_QUEUE)
                            kill(launcher->pid(), static_cast<int>(si.ssi_signo));
                        spdlog::info("signal {}: waiting for the command to exit", strsignal(si.ssi_signo));
                    } else {
                        stop = true;
                        stop_reason = std::string("stopped by ") + strsignal(si.ssi_signo);
                    }
                }
            } else if (events[i].data.u32 == 3) {
                reap_child();
            }
        }
        // Read exec'd processes' rank variables while they still run (the
        // records of their exec are in the batch flushed just before).
        if (!stream.exec_pending.empty()) {
            if (auto r = writer.flush(); !r && stream.error.empty())
                stream.error = r.error().message;
            for (uint32_t pid : stream.exec_pending)
                if (auto r = write_env(writer, static_cast<pid_t>(pid), opt.rank_env); !r && stream.error.empty())
                    stream.error = r.error().message;
            stream.exec_pending.clear();
        }
        const uint64_t now = clock_ns(CLOCK_MONOTONIC);
        run_stats.tick(now);
        if (launcher && child_status) {
            stop = true;
        } else if (!launcher && now - last_liveness >= 200'000'000) {
            // An exit record could in principle be lost; trust the kernel's view.
            last_liveness = now;
            for (auto it = stream.live.begin(); it != stream.live.end();)
                it = process_exists(static_cast<pid_t>(*it)) ? std::next(it) : stream.live.erase(it);
        }
        if (!launcher && stream.live.empty()) {
            stop = true;
            stop_reason = "every traced process exited";
        }
        if (now >= deadline) {
            stop = true;
            stop_reason = "duration reached";
        }
        if (now - last_flush >= kFlushEveryNs) {
            last_flush = now;
            if (auto r = writer.flush(); !r && stream.error.empty())
                stream.error = r.error().message;
        }
        if (!stream.error.empty())
            return make_error("recording stopped: " + stream.error);
    }
    const uint64_t end_mono = clock_ns(CLOCK_MONOTONIC);
    run_stats.stop(end_mono);

    // Stop new events, then drain every record already queued.
    probes.detach();
    while (ring.consume(to_stream) > 0) {
    }

    auto counters = probes.read_counters();
    capture.duration_ns = end_mono - attach_mono;
    capture.events = stream.records;
    for (const char* name : {"ring_buffer_full", "no_thread_state", "pid_above_bitmap", "inode_watch_full"})
        if (counters[name])
            capture.lost_detail[name] = counters[name];
    if (counters["records"] > stream.records)
        capture.lost_detail["undelivered"] = counters["records"] - stream.records;
    capture.lost_events = 0;
    for (const auto& [_, n] : capture.lost_detail)
        capture.lost_events += n;
    capture.kernel_counters = counters;
    capture.stop_reason = stop_reason;
    for (uint32_t dev : stream.devices)
        capture.devices[dev] = block_device_name(dev);

    RecordOutcome outcome;
    if (launcher) {
        if (!child_status) {
            // Duration ended the recording; the command runs on untraced.
            int st = 0;
            spdlog::info("recording ended ({}); waiting for the command to exit", stop_reason);
            while (waitpid(launcher->pid(), &st, 0) < 0 && errno == EINTR) {
            }
            child_status = shell_status(st);
        }
        capture.exit_status = *child_status;
        outcome.exit_status = *child_status;
    }
    recording::CostInfo cost;
    cost.attach_ns = attach_mono - started_mono;
    if (run_stats.available()) {
        // Timed only in the sampled windows: scale to the whole capture.
        cost.bpf_sampled_share = run_stats.sampled_share();
        for (auto c : probes.program_costs()) {
            c.run_ns = static_cast<uint64_t>(static_cast<double>(c.run_ns) / cost.bpf_sampled_share);
            c.runs = static_cast<uint64_t>(static_cast<double>(c.runs) / cost.bpf_sampled_share);
            cost.bpf.push_back(c);
        }
    } else {
        cost.bpf_stats_unavailable = run_stats.unavailable();
    }
    const Usage self = self_usage();
    cost.recorder_cpu_ns = self.cpu_ns - std::min(self.cpu_ns, cpu_at_attach);
    cost.recorder_max_rss_bytes = self.max_rss_bytes;
    if (launcher) {
        cost.job_cpu_ns = reaped_children_cpu_ns();
    } else if (auto now_cpu = process_cpu_ns(*opt.pid); now_cpu && target_cpu_at_attach) {
        cost.job_cpu_ns = *now_cpu - std::min(*now_cpu, *target_cpu_at_attach);
    } else {
        cost.job_cpu_unavailable = "pid " + std::to_string(*opt.pid) + " exited before the end of the capture";
    }
    capture.cost = cost;
    if (auto r = write_json(writer, recording::ChunkType::End, recording::capture_to_json(capture)); !r)
        return r.error();
    if (auto r = writer.close(); !r)  // surfaces close-time errors too
        return r.error();
    if (!stream.error.empty())
        return make_error("recording incomplete: " + stream.error);
    // Release the kernel side first (programs, maps, and the ring buffer,
    // whose pages are mapped into this process): the recorder's peak memory
    // is then the larger of capture and summary, not their sum.
    ring_or.value().reset();
    probes_or.value().reset();

    // The summary is built from the file, after the job: the recorder does
    // no analysis while the job runs (its CPU would compete with the job's),
    // its memory stays bounded however long the run, and `report` reads the
    // same bytes through the same code.
    auto report = model::load_recording(opt.output_path, bopt);
    if (!report)
        return make_error("cannot read back the recording " + opt.output_path + ": " + report.error().message);
    outcome.report = std::move(report.value());
    return outcome;
}

}  // namespace iolens::capture
