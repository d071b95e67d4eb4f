// One `iolens record` run as a sequence of steps, in the manner of perf's
// `struct record` and its record__* functions: each step is a member function
// of RecordSession, run() calls them in order, and the state they share is
// the session's. Every kernel resource is owned by a member, so any early
// return releases it.
//
//   open_output     the recording file first: a bad path fails before anything runs
//   open_signals    SIGINT/SIGTERM/SIGHUP/SIGCHLD read from a signalfd
//   load_probes     the probe families, the ring buffer reader
//   start_target    launch the command (held at its gate) or adopt the -p tree
//   attach          (drop caches), attach, start the cost accounting
//   write_start     META, the processes known at attach, their rank variables
//   go_live         release the command's gate; the file gets its name
//   event_loop      drain the ring until a stop reason (steps of its own below)
//   teardown        detach, drain, read the counters, wait for the command
//   write_end       END: counters, losses, devices, cost; close the file
#include "capture/record_session.h"

#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cstddef>
#include <set>
#include <string_view>
#include <vector>

#include <spdlog/spdlog.h>

#include "capture/launcher.h"
#include "iolens/abi.h"
#include "capture/node.h"
#include "capture/process_env.h"
#include "capture/process_scan.h"
#include "capture/record_stream.h"
#include "capture/ring_reader.h"
#include "capture/self_cost.h"
#include "capture/signals.h"
#include "capture/stack_capture.h"
#include "model/rank_env.h"
#include "probes/run_stats.h"
#include "recording/capture_json.h"
#include "recording/recording.h"
#include "util/clock.h"
#include "util/errno_text.h"
#include "util/fd.h"
#include "util/json_text.h"
#include "util/text.h"

namespace iolens::capture {

namespace {

constexpr int kPollMs = 50;  // drain at least this often (wake-ups are batched)
// A killed recorder (SIGKILL) loses what it has not written yet: at most
// ~kFlushEveryNs + kPollMs of records, or kFlushBytes (docs/recording-format.md).
constexpr uint64_t kFlushEveryNs = 100'000'000;
constexpr size_t kFlushBytes = 256u << 10;
constexpr uint64_t kLivenessEveryNs = 200'000'000;  // -p: how often /proc is asked who still runs

// epoll tags of the event loop's sources.
enum : uint32_t { kRingEvent = 1, kSignalEvent = 2, kChildEvent = 3 };

int shell_status(int wstatus) {
    if (WIFEXITED(wstatus)) return WEXITSTATUS(wstatus);
    if (WIFSIGNALED(wstatus)) return 128 + WTERMSIG(wstatus);
    return 1;
}

Result<void> write_json(recording::Writer& w, recording::ChunkType type, const nlohmann::json& j) {
    return w.write_json_chunk(type, json_dump(j));
}

// The kernel counters that are losses, as they appear in lost_detail.
constexpr const auto& kLossCounters = probes::kLossCounterNames;

}  // namespace

class RecordSession {
public:
    RecordSession(const RecordOptions& opt, const probes::Features& features)
        : opt_(opt),
          features_(features),
          started_mono_(opt.started_mono_ns ? opt.started_mono_ns : monotonic_ns()) {}

    Result<RecordOutcome> run();

private:
    Result<void> check_request() const;
    Result<void> open_output();
    Result<void> open_signals();
    Result<void> load_probes();
    Result<void> start_target();
    Result<void> attach();
    Result<void> write_start();
    Result<void> go_live();
    Result<void> event_loop();
    void teardown();
    Result<void> write_end();

    // Parts of the steps.
    void adopt_tree();
    void adopt_cgroup();
    bool cgroup_done(std::string& reason);
    void read_signals(bool& stop);
    void reap_child();
    void write_exec_envs();
    bool should_stop(uint64_t now, std::string& reason);
    recording::CostInfo measure_cost() const;
    Result<void> write_env(pid_t pid);
    Result<void> write_open_files();
    void warn_write_failure();
    void note(const Result<void>& r) {
        if (!r) stream_->note_error(r.error().message);
    }

    const RecordOptions& opt_;
    const probes::Features& features_;
    const uint64_t started_mono_;

    // Written under a temporary name until the command runs (go_live): a
    // failure before that leaves no file, and an old one (-f) untouched.
    std::unique_ptr<recording::Writer> writer_;
    std::string recording_path_;  // where it is: its name, or the temporary one if naming failed
    std::optional<SignalInbox> signals_;
    std::unique_ptr<probes::ProbeSet> probes_;
    std::unique_ptr<RecordStream> stream_;
    std::unique_ptr<StackCapture> stacks_;  // record --stacks
    std::unique_ptr<RingReader> ring_;

    std::optional<Launcher> launcher_;
    std::vector<pid_t> targets_;                   // the pids the user named or launched
    std::vector<recording::ProcessInfo> initial_;  // processes known at attach
    std::optional<int> child_status_;
    bool warned_write_ = false;

    uint64_t attach_mono_ = 0;
    uint64_t cpu_at_attach_ = 0;
    std::optional<uint64_t>
        target_cpu_at_attach_;  // -p: the target's CPU time so far (--cgroup: the group's)
    bool cgroup_seen_populated_ = false;
    uint64_t last_cgroup_check_ = 0;
    std::optional<uint64_t> cgroup_cpu_last_;  // --cgroup: a process was in it at some point
    probes::RunStats run_stats_;
    recording::CaptureInfo capture_;
    uint64_t end_mono_ = 0;
};

Result<RecordOutcome> run_record(const RecordOptions& options, const probes::Features& features) {
    RecordSession session(options, features);
    return session.run();
}

Result<RecordOutcome> RecordSession::run() {
    if (auto r = check_request(); !r) return r.error();
    if (auto r = open_output(); !r) return r.error();
    for (auto step : {&RecordSession::open_signals, &RecordSession::load_probes, &RecordSession::start_target,
                      &RecordSession::attach, &RecordSession::write_start, &RecordSession::go_live,
                      &RecordSession::event_loop})
        if (auto r = (this->*step)(); !r) return r.error();
    teardown();
    warn_write_failure();
    if (auto r = write_end(); !r)
        // The job is done and its status known: say what the file lacks.
        spdlog::error("the recording has no end marker ({}): it reads as partial", r.error().message);
    const auto& loss = writer_->loss();
    if (loss.chunks)
        spdlog::error("{} chunk(s), {} bytes holding {} records, could not be written to {}", loss.chunks,
                      loss.bytes, loss.records, recording_path_);
    return RecordOutcome{child_status_.value_or(0), recording_path_, loss.chunks != 0};
}

Result<void> RecordSession::check_request() const {
    if (!features_.can_trace())
        return make_error("iolens record needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN): run it as root");
    if (opt_.cgroup && (opt_.pid || !opt_.command.empty()))
        return make_error("--cgroup traces a group's processes: give no -p PID and no command with it");
    if (opt_.pid && !process_exists(*opt_.pid))
        return make_error("no process with pid " + std::to_string(*opt_.pid));
    if (opt_.pid && *opt_.pid == getpid())
        return make_error("pid " + std::to_string(*opt_.pid) + " is this iolens itself");
    if (std::string comm; opt_.pid && is_kernel_thread(*opt_.pid, comm))
        return Error{
            "pid " + std::to_string(*opt_.pid) + " (" + comm +
                ") is a kernel thread: it makes no file syscalls of its own, so there is nothing to trace",
            2};
    if (opt_.pid && *opt_.pid == 1)
        spdlog::warn(
            "pid 1 is init: every process it starts from now on (the system's new processes, not only a "
            "job's) will be traced");
    return {};
}

Result<void> RecordSession::open_output() {
    recording::WriterOptions wopt;
    wopt.force = opt_.force;
    wopt.deferred = true;
    wopt.flush_bytes = kFlushBytes;
    wopt.observer = opt_.chunk_observer;
    auto writer = recording::Writer::create(opt_.output_path, wopt);
    if (!writer) return writer.error();
    writer_ = std::move(writer.value());
    recording_path_ = opt_.output_path;
    stream_ = std::make_unique<RecordStream>(*writer_);
    return {};
}

Result<void> RecordSession::open_signals() {
    auto inbox = SignalInbox::open();
    if (!inbox) return inbox.error();
    signals_.emplace(std::move(inbox.value()));
    return {};
}

Result<void> RecordSession::load_probes() {
    auto probes = probes::ProbeSet::load(features_, opt_.probe);
    if (!probes) return probes.error();
    probes_ = std::move(probes.value());
    auto ring = RingReader::open(probes_->ringbuf_fd());
    if (!ring) return ring.error();
    ring_ = std::move(ring.value());
    if (opt_.probe.stacks.enabled) {
        stacks_ = std::make_unique<StackCapture>(*writer_, probes_->map_fd("iolens_stack_ra"));
        stream_->set_stacks(stacks_.get());
    }
    return {};
}

Result<void> RecordSession::start_target() {
    if (!opt_.command.empty()) {
        auto l = Launcher::fork_gated(opt_.command);
        if (!l) return l.error();
        launcher_.emplace(std::move(l.value()));
        targets_.push_back(launcher_->pid());
        probes_->tracked().add(static_cast<uint32_t>(launcher_->pid()));
        return {};
    }
    if (opt_.cgroup) {
        for (pid_t p : cgroup_members(opt_.cgroup->path))
            if (p != getpid()) probes_->tracked().add(static_cast<uint32_t>(p));
        return {};
    }
    for (pid_t p : process_tree(*opt_.pid))
        if (p != getpid())  // `iolens record -p $$` puts us in the tree: never trace ourselves
            probes_->tracked().add(static_cast<uint32_t>(p));
    return {};
}

Result<void> RecordSession::attach() {
    if (opt_.drop_caches) {
        if (auto r = drop_page_cache(); !r) return r.error();
        spdlog::info("page cache dropped: this run starts cold");
    }
    if (auto r = probes_->attach(); !r) return r.error();
    attach_mono_ = monotonic_ns();
    // The recorder's cost is what it spends while the job is traced: loading
    // and attaching the probes happen before the job runs (attach_ns).
    cpu_at_attach_ = self_usage().cpu_ns;
    if (opt_.bpf_stats != "off" && !run_stats_.start(opt_.bpf_stats == "always"))
        spdlog::warn("{}: the BPF cost is estimated from the programs' own timing instead",
                     run_stats_.unavailable());
    if (opt_.pid) target_cpu_at_attach_ = process_cpu_ns(*opt_.pid);
    if (opt_.cgroup) target_cpu_at_attach_ = cgroup_cpu_ns(opt_.cgroup->path);

    if (launcher_) {
        recording::ProcessInfo info;
        info.pid = static_cast<uint32_t>(launcher_->pid());
        info.ppid = static_cast<uint32_t>(getpid());
        info.cmdline = opt_.command;
        info.comm = opt_.command[0].substr(opt_.command[0].rfind('/') + 1).substr(0, 15);
        info.start_ns = attach_mono_;
        initial_.push_back(info);
    } else if (opt_.cgroup) {
        adopt_cgroup();
    } else {
        adopt_tree();
    }
    return {};
}

// --cgroup: the group's members at attach. The kernel tracks from the attach
// on whoever joins the group or is forked into it (or by a member); a
// process that joined while we listed is caught by one of the two. Rescan
// until the membership is stable. The targets are the members whose parent
// is not one (a job step's first processes).
void RecordSession::adopt_cgroup() {
    std::set<pid_t> seen;
    for (int round = 0; round < 5; round++) {
        bool grew = false;
        for (pid_t p : cgroup_members(opt_.cgroup->path)) {
            if (p != getpid() && seen.insert(p).second) {
                grew = true;
                probes_->tracked().add(static_cast<uint32_t>(p));
                if (auto info = read_process(p)) initial_.push_back(*info);
            }
        }
        if (!grew) break;
    }
    for (const auto& info : initial_)
        if (!seen.count(static_cast<pid_t>(info.ppid))) targets_.push_back(static_cast<pid_t>(info.pid));
    for (pid_t p : seen) stream_->live().insert(static_cast<uint32_t>(p));
    cgroup_seen_populated_ = !seen.empty();
}

// --cgroup: recording ends when the group is removed, or when it had
// processes and has none left (the job step ended). An empty group at attach
// is waited for: a job may be started into it after iolens.
bool RecordSession::cgroup_done(std::string& reason) {
    auto populated = cgroup_populated(opt_.cgroup->path);
    if (!populated) {
        struct stat st {};
        if (stat(opt_.cgroup->path.c_str(), &st) == 0) populated = true;  // unreadable now, not gone: keep on
    }
    if (auto cpu = cgroup_cpu_ns(opt_.cgroup->path))
        cgroup_cpu_last_ = cpu;  // the group may be gone at the end
    if (!populated) {
        reason = "the cgroup was removed";
        return true;
    }
    if (*populated || !stream_->live().empty() || !stream_->joined().empty()) cgroup_seen_populated_ = true;
    if (cgroup_seen_populated_ && !*populated && stream_->live().empty()) {
        reason = "every process of the cgroup exited";
        return true;
    }
    return false;
}

// Processes known at attach time. With -p, children forked while we were
// scanning are already caught by the fork probe if their parent was tracked;
// rescan until the tree is stable to catch the rest.
void RecordSession::adopt_tree() {
    std::set<pid_t> seen;
    for (int round = 0; round < 5; round++) {
        bool grew = false;
        for (pid_t p : process_tree(*opt_.pid)) {
            if (p != getpid() && seen.insert(p).second) {
                grew = true;
                probes_->tracked().add(static_cast<uint32_t>(p));
                if (auto info = read_process(p)) initial_.push_back(*info);
            }
        }
        if (!grew) break;
    }
    targets_.push_back(*opt_.pid);  // the pid the user named; the rest are its tree
    for (pid_t p : seen) stream_->live().insert(static_cast<uint32_t>(p));
}

// Records the rank-related environment of a process (never the rest of it).
Result<void> RecordSession::write_env(pid_t pid) {
    std::vector<std::string> names = model::rank_env_variables();
    if (!opt_.rank_env.empty()) names.push_back(opt_.rank_env);
    auto vars = read_env_vars(pid, names);
    if (vars.empty()) return {};
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [name, value] : vars) j[utf8_escaped(name)] = text_json(value);
    return write_json(*writer_, recording::ChunkType::Env, {{"pid", pid}, {"vars", std::move(j)}});
}

namespace {

// CLOCK_REALTIME with the CLOCK_MONOTONIC of the same moment: of three
// monotonic-realtime-monotonic readings, the one with the shortest gap; the
// uncertainty is half of it.
struct ClockPair {
    uint64_t realtime_ns, monotonic_ns, uncertainty_ns;
};
ClockPair clock_pair() {
    ClockPair best{0, 0, UINT64_MAX};
    for (int i = 0; i < 3; ++i) {
        const uint64_t m0 = clock_ns(CLOCK_MONOTONIC), r = clock_ns(CLOCK_REALTIME),
                       m1 = clock_ns(CLOCK_MONOTONIC);
        if ((m1 - m0) / 2 < best.uncertainty_ns) best = {r, m0 + (m1 - m0) / 2, (m1 - m0 + 1) / 2};
    }
    return best;
}

}  // namespace

Result<void> RecordSession::write_start() {
    const ClockPair anchor = clock_pair();
    capture_.anchor_start_realtime_ns = anchor.realtime_ns;
    capture_.anchor_start_monotonic_ns = anchor.monotonic_ns;
    capture_.anchor_uncertainty_ns = anchor.uncertainty_ns;
    capture_.job_id = opt_.job_id;
    capture_.job_id_source = opt_.job_id_source;
    capture_.stacks = opt_.stacks_spec;
    capture_.command = opt_.command;
    for (pid_t p : targets_) capture_.pids.push_back(static_cast<uint32_t>(p));
    if (opt_.cgroup) {
        capture_.cgroup_path = opt_.cgroup->path;
        capture_.cgroup_id = opt_.cgroup->id;
    }
    capture_.start_unix_ns = clock_ns(CLOCK_REALTIME);
    capture_.start_mono_ns = attach_mono_;
    capture_.probes = probes_->statuses();
    capture_.hostname = host_name();
    capture_.kernel_release = features_.kernel_release;
    capture_.iolens_version = IOLENS_VERSION_STRING;
    if (auto r = write_json(*writer_, recording::ChunkType::Meta, recording::capture_to_json(capture_)); !r)
        return r;
    for (const auto& info : initial_)
        if (auto r = write_json(*writer_, recording::ChunkType::Process, recording::process_to_json(info));
            !r)
            return r;
    if (!launcher_)  // processes that exist at attach; a launched command is read at its exec
        for (const auto& info : initial_)
            if (auto r = write_env(static_cast<pid_t>(info.pid)); !r) return r;
    return write_open_files();
}

// Files the processes had open before tracing began (a shell's redirections,
// a -p target's open files): the kernel saw no open, so without a file
// record of their own they would be "<dev M:m ino N>". A launched command is
// read before it execs: only its fds that survive the exec count.
Result<void> RecordSession::write_open_files() {
    std::vector<std::byte> records;
    uint64_t count = 0;
    for (const auto& info : initial_) {
        for (const auto& f : open_files(static_cast<pid_t>(info.pid), launcher_.has_value())) {
            iolens_file_rec rec{};
            rec.hdr.type = IOLENS_REC_FILE;
            rec.pid = info.pid;
            rec.dev = f.dev;
            rec.ino = f.ino;
            rec.mode = f.mode;
            rec.size = f.size;
            rec.ts_ns = attach_mono_;
            // Components leaf first, each NUL-terminated (struct iolens_file_rec).
            size_t len = 0;
            std::string_view rest = f.path;
            while (!rest.empty()) {
                const size_t slash = rest.rfind('/');
                const std::string_view part = rest.substr(slash + 1);
                rest = rest.substr(0, slash == std::string_view::npos ? 0 : slash);
                if (part.empty()) continue;
                if (len + part.size() + 1 > IOLENS_PATH_BYTES) {
                    rec.flags |= IOLENS_FILE_TRUNCATED;
                    break;
                }
                std::memcpy(rec.path + len, part.data(), part.size());
                len += part.size() + 1;  // rec is zeroed: the NUL is there
            }
            rec.path_len = static_cast<uint16_t>(len);
            const size_t size = offsetof(iolens_file_rec, path) + len;
            rec.hdr.size = static_cast<uint16_t>(size);
            const auto* bytes = reinterpret_cast<const std::byte*>(&rec);
            records.insert(records.end(), bytes, bytes + size);
            count++;
        }
    }
    if (count) spdlog::debug("{} file(s) open before tracing named from /proc", count);
    return count ? writer_->append_records(records, count) : Result<void>{};
}

Result<void> RecordSession::go_live() {
    if (opt_.cgroup) {
        if (auto r = writer_->commit(); !r) return r;
        spdlog::info("tracing live: cgroup {} (id {}), {} process(es) in it", opt_.cgroup->path,
                     opt_.cgroup->id, stream_->live().size());
        return {};
    }
    if (!launcher_) {
        if (auto r = writer_->commit(); !r) return r;
        if (stream_->live().empty())
            spdlog::warn("pid {} exited while tracing was being attached: there is nothing left to trace",
                         *opt_.pid);
        else
            spdlog::info("tracing live: pid {} and its {} descendant(s)", *opt_.pid,
                         stream_->live().size() - 1);
        return {};
    }
    if (auto r = launcher_->release(); !r) {
        int st = 0;
        waitpid(launcher_->pid(), &st, 0);
        // The error is the user's (command not found): 127/126 like a shell.
        return Error{r.error().message, shell_status(st)};
    }
    // The command runs: whatever happens now is worth keeping.
    if (auto r = writer_->commit(); !r)  // the command runs anyway, traced and waited for
    {
        recording_path_ = writer_->keep_temporary();
        spdlog::error("{}: the recording is written to {} instead", r.error().message, recording_path_);
    }
    spdlog::info("tracing live: {} (pid {})", opt_.command[0], launcher_->pid());
    return {};
}

void RecordSession::reap_child() {
    int st = 0;
    if (launcher_ && !child_status_ && waitpid(launcher_->pid(), &st, WNOHANG) == launcher_->pid())
        child_status_ = shell_status(st);
}

void RecordSession::read_signals(bool& stop) {
    int signo = 0, code = 0;
    while (signals_->next(signo, code)) {
        if (signo == SIGCHLD) {
            reap_child();
            continue;
        }
        if (launcher_ && !child_status_) {
            // A signal from the terminal reached the command too; one sent to
            // us alone (kill) is passed on. Either way we keep recording until
            // the command is gone.
            if (code == SI_USER || code == SI_QUEUE) kill(launcher_->pid(), signo);
            spdlog::info("signal {}: waiting for the command to exit", strsignal(signo));
        } else {
            stop = true;
            capture_.stop_reason = std::string("stopped by ") + strsignal(signo);
        }
    }
}

// Reads exec'd processes' rank variables while they still run (the records of
// their exec are in the batch flushed just before).
void RecordSession::write_exec_envs() {
    const auto execs = stream_->take_execs();
    if (execs.empty()) return;
    note(writer_->flush());
    for (uint32_t pid : execs) note(write_env(static_cast<pid_t>(pid)));
}

bool RecordSession::should_stop(uint64_t now, std::string& reason) {
    bool stop = false;
    if (launcher_ && child_status_) stop = true;
    if (!launcher_ && !opt_.cgroup && stream_->live().empty()) {
        stop = true;
        reason = "every traced process exited";
    }
    if (opt_.cgroup && now - last_cgroup_check_ >= kLivenessEveryNs / 2) {
        last_cgroup_check_ = now;
        if (cgroup_done(reason)) stop = true;
    }
    const uint64_t deadline = opt_.duration_ns ? attach_mono_ + *opt_.duration_ns : UINT64_MAX;
    if (now >= deadline) {
        stop = true;
        reason = "duration reached";
    }
    return stop;
}

Result<void> RecordSession::event_loop() {
    UniqueFd child_pidfd;
    if (launcher_) child_pidfd.reset(static_cast<int>(syscall(SYS_pidfd_open, launcher_->pid(), 0)));
    UniqueFd ep(epoll_create1(EPOLL_CLOEXEC));
    epoll_event ev{};
    ev.events = EPOLLIN;
    for (auto [tag, fd] : {std::pair{kRingEvent, ring_->poll_fd()}, std::pair{kSignalEvent, signals_->fd()},
                           std::pair{kChildEvent, child_pidfd.get()}}) {
        ev.data.u32 = tag;
        if (fd >= 0) epoll_ctl(ep.get(), EPOLL_CTL_ADD, fd, &ev);
    }
    const RingReader::Callback to_stream = [this](const void* data, size_t size) {
        stream_->on_sample(data, size);
    };
    uint64_t last_flush = attach_mono_, last_liveness = attach_mono_;
    bool stop = false;
    while (!stop) {
        epoll_event events[4];
        const int n = epoll_wait(ep.get(), events, 4, kPollMs);
        ring_->consume(to_stream);
        for (int i = 0; i < n; i++) {
            if (events[i].data.u32 == kSignalEvent)
                read_signals(stop);
            else if (events[i].data.u32 == kChildEvent)
                reap_child();
        }
        write_exec_envs();
        const uint64_t now = monotonic_ns();
        if (!launcher_ && now - last_liveness >= kLivenessEveryNs) {
            // An exit record could in principle be lost; trust the kernel's view.
            last_liveness = now;
            auto& live = stream_->live();
            for (auto it = live.begin(); it != live.end();)
                it = process_exists(static_cast<pid_t>(*it)) ? std::next(it) : live.erase(it);
        }
        stop = should_stop(now, capture_.stop_reason) || stop;
        if (now - last_flush >= kFlushEveryNs) {
            last_flush = now;
            note(writer_->flush());
        }
        if (opt_.on_tick && !stop) {
            const RecordOptions::LiveStatus live{now, attach_mono_, stream_->records(), [this]() {
                                                     auto c = probes_->read_counters();
                                                     uint64_t lost = 0;
                                                     for (const char* name : kLossCounters) lost += c[name];
                                                     return lost;
                                                 }};
            if (opt_.on_tick(live, capture_.stop_reason)) stop = true;
        }
        warn_write_failure();
    }
    return {};
}

// A write failure (disk full) never ends the capture: the job keeps running,
// traced and waited for; what cannot be written is counted (WriteLoss) and
// the END chunk says so if it can be written.
void RecordSession::warn_write_failure() {
    if (stream_->error().empty() || warned_write_) return;
    warned_write_ = true;
    spdlog::error(
        "{}; the job keeps running and is waited for: records that cannot be written are counted as "
        "lost",
        stream_->error());
}

void RecordSession::teardown() {
    end_mono_ = monotonic_ns();
    run_stats_.stop();
    // Stop new events, then drain every record already queued.
    probes_->detach();
    const RingReader::Callback to_stream = [this](const void* data, size_t size) {
        stream_->on_sample(data, size);
    };
    while (ring_->consume(to_stream) > 0) {
    }
    if (launcher_ && !child_status_) {
        // Duration ended the recording; the command runs on untraced.
        int st = 0;
        spdlog::info("recording ended ({}); waiting for the command to exit", capture_.stop_reason);
        while (waitpid(launcher_->pid(), &st, 0) < 0 && errno == EINTR) {
        }
        child_status_ = shell_status(st);
    }
}

recording::CostInfo RecordSession::measure_cost() const {
    recording::CostInfo cost;
    cost.attach_ns = attach_mono_ - started_mono_;
    if (opt_.bpf_stats == "off") {
        cost.bpf_stats_unavailable = "not measured (record --bpf-stats off)";
    } else if (run_stats_.kernel_throughout()) {
        // The kernel timed every run: exact.
        for (const auto& c : probes_->program_costs()) cost.bpf.push_back({c.family, c.run_ns, c.runs});
    } else {
        // Every run counted and one in 2^IOLENS_TIMED_SHIFT timed by the
        // programs themselves: each family's timed runs' mean time, times
        // its runs. A family with no timed run (fewer than ~64 runs) has a
        // time of 0, its runs still counted.
        uint64_t runs = 0, timed = 0;
        for (const auto& c : probes_->program_costs()) {
            const double per_run =
                c.timed_runs ? static_cast<double>(c.timed_ns) / static_cast<double>(c.timed_runs) : 0.0;
            cost.bpf.push_back({c.family,
                                static_cast<uint64_t>(per_run * static_cast<double>(c.counted_runs)),
                                c.counted_runs});
            runs += c.counted_runs;
            timed += c.timed_runs;
        }
        cost.bpf_timed_every = uint64_t{1} << IOLENS_TIMED_SHIFT;
        cost.bpf_sampled_share =
            runs ? std::min(1.0, static_cast<double>(timed) / static_cast<double>(runs)) : 1.0;
    }
    const Usage self = self_usage();
    cost.recorder_cpu_ns = self.cpu_ns - std::min(self.cpu_ns, cpu_at_attach_);
    cost.recorder_max_rss_bytes = self.max_rss_bytes;
    if (launcher_) {
        cost.job_cpu_ns = reaped_children_cpu_ns();
    } else if (opt_.cgroup) {
        auto now_cpu = cgroup_cpu_ns(opt_.cgroup->path);
        if (!now_cpu) now_cpu = cgroup_cpu_last_;
        if (now_cpu && target_cpu_at_attach_)
            cost.job_cpu_ns = *now_cpu - std::min(*now_cpu, *target_cpu_at_attach_);
        else
            cost.job_cpu_unavailable = "the cgroup's cpu.stat could not be read at the start and the end";
    } else if (auto now_cpu = process_cpu_ns(*opt_.pid); now_cpu && target_cpu_at_attach_) {
        cost.job_cpu_ns = *now_cpu - std::min(*now_cpu, *target_cpu_at_attach_);
    } else {
        cost.job_cpu_unavailable =
            "pid " + std::to_string(*opt_.pid) + " exited before the end of the capture";
    }
    return cost;
}

Result<void> RecordSession::write_end() {
    auto counters = probes_->read_counters();
    capture_.duration_ns = end_mono_ - attach_mono_;
    const ClockPair anchor = clock_pair();
    capture_.anchor_end_realtime_ns = anchor.realtime_ns;
    capture_.anchor_end_monotonic_ns = anchor.monotonic_ns;
    capture_.anchor_uncertainty_ns = std::max(capture_.anchor_uncertainty_ns, anchor.uncertainty_ns);
    capture_.events = stream_->records();
    for (const char* name : kLossCounters)
        if (counters[name]) capture_.lost_detail[name] = counters[name];
    if (counters["records"] > stream_->records())
        capture_.lost_detail["undelivered"] = counters["records"] - stream_->records();
    // Records that reached the recorder but not the file (disk full).
    if (auto r = writer_->flush(); !r) stream_->note_error(r.error().message);
    if (writer_->loss().records) capture_.lost_detail["not_written"] = writer_->loss().records;
    capture_.lost_events = 0;
    for (const auto& [_, n] : capture_.lost_detail) capture_.lost_events += n;
    capture_.kernel_counters = counters;
    for (uint32_t dev : stream_->devices()) capture_.devices[dev] = block_device_name(dev);
    if (launcher_) capture_.exit_status = *child_status_;
    // --cgroup: the processes that joined the group are targets too (their
    // parents are outside it: a job step's launcher).
    if (opt_.cgroup)
        for (uint32_t pid : stream_->joined())
            if (std::find(capture_.pids.begin(), capture_.pids.end(), pid) == capture_.pids.end())
                capture_.pids.push_back(pid);
    if (stacks_) {
        if (auto r = stacks_->finish(); !r) stream_->note_error(r.error().message);
        if (!stacks_->error().empty()) stream_->note_error(stacks_->error());
    }
    capture_.cost = measure_cost();
    if (auto r = write_json(*writer_, recording::ChunkType::End, recording::capture_to_json(capture_)); !r)
        return r;
    return writer_->close();  // surfaces close-time errors too
}

}  // namespace iolens::capture
