// `iolens top`: the job live. It records exactly as `iolens record` does (the
// same probes, the same session, the same file format) and feeds every chunk
// it writes to a live model (model::Replay, the one `report` uses); every
// interval it takes a snapshot of that model and shows the rates since the
// last one (analysis::make_top_frame) full-screen, or as one block per
// interval with --batch.
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "analysis/findings.h"
#include "analysis/top.h"
#include "capture/node.h"
#include "capture/record_session.h"
#include "capture/cgroup.h"
#include "cli/commands.h"
#include "cli/live_model.h"
#include "cli/options.h"
#include "model/replay.h"
#include "probes/features.h"
#include "report/top_renderer.h"
#include "util/output_file.h"

namespace iolens::cli {

namespace {

struct TopCliOptions {
    int64_t pid = 0;
    std::string cgroup;  // --cgroup PATH|ID
    std::vector<std::string> command;
    std::string interval = "1s";
    std::string duration;
    std::string output;  // empty: a temporary recording, removed at the end
    bool force = false;
    bool batch = false;
    uint64_t iterations = 0;  // 0: until the job ends
    std::string view = "ranks";
};

// The terminal in the full-screen view: no echo, keys one at a time, the
// alternate screen, no cursor; put back however top ends (q, Ctrl-C, the job
// ending, an error).
class Screen {
public:
    bool open() {
        if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) return false;
        if (tcgetattr(STDIN_FILENO, &saved_) != 0) return false;
        termios raw = saved_;
        raw.c_lflag &= static_cast<tcflag_t>(~(ICANON | ECHO));
        raw.c_cc[VMIN] = 0;
        raw.c_cc[VTIME] = 0;
        if (tcsetattr(STDIN_FILENO, TCSANOW, &raw) != 0) return false;
        active_ = true;
        put("\x1b[?1049h\x1b[?25l\x1b[H\x1b[2J");
        return true;
    }
    ~Screen() { close(); }
    void close() {
        if (!active_) return;
        active_ = false;
        put("\x1b[?25h\x1b[?1049l");
        tcsetattr(STDIN_FILENO, TCSANOW, &saved_);
    }
    // The key pressed, or 0.
    static char key() {
        pollfd p{STDIN_FILENO, POLLIN, 0};
        char c = 0;
        if (poll(&p, 1, 0) == 1 && (p.revents & POLLIN) && read(STDIN_FILENO, &c, 1) == 1) return c;
        return 0;
    }
    static std::pair<size_t, size_t> size() {
        winsize w{};
        if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) != 0 || w.ws_col == 0 || w.ws_row == 0) return {80, 24};
        return {w.ws_col, w.ws_row};
    }
    void draw(const std::vector<std::string>& lines) {
        // No newline after the last line: on the last row it would scroll.
        std::string s = "\x1b[H";
        for (size_t i = 0; i < lines.size(); ++i)
            s += lines[i] + "\x1b[K" + (i + 1 < lines.size() ? "\n" : "");
        s += "\x1b[J";
        put(s);
    }

private:
    static void put(const std::string& s) {
        std::fwrite(s.data(), 1, s.size(), stdout);
        std::fflush(stdout);
    }
    termios saved_{};
    bool active_ = false;
};

Result<analysis::TopView> parse_view(const std::string& v) {
    if (v == "ranks" || v == "r") return analysis::TopView::Ranks;
    if (v == "processes" || v == "p") return analysis::TopView::Processes;
    if (v == "files" || v == "f") return analysis::TopView::Files;
    if (v == "devices" || v == "d") return analysis::TopView::Devices;
    return make_error("--sort must be ranks, processes, files or devices, not '" + v + "'");
}

// The full-screen or batch view of the live model.
class LiveView {
public:
    LiveView(analysis::TopView view, uint64_t interval_ns, bool batch)
        : view_(view), interval_ns_(interval_ns), batch_(batch) {}

    void on_chunk(recording::ChunkType type, std::span<const std::byte> payload) {
        model_.on_chunk(type, payload);
    }

    // Returns true to stop (q, or the -n count reached).
    bool on_tick(const capture::RecordOptions::LiveStatus& live, std::string& reason, uint64_t iterations) {
        if (!model_.started()) {
            model_.start(live.now_ns);
            if (!batch_) screen_.open();
        }
        bool redraw = false;
        if (!batch_) {
            for (char k; (k = Screen::key()) != 0;) {
                if (k == 'q' || k == 'Q') {
                    reason = "stopped from iolens top (q)";
                    return true;
                }
                if (auto v = parse_view(std::string(1, k)); v) {
                    view_ = *v;
                    if (model_.has_frame()) model_.reframe(view_);
                    redraw = true;
                }
            }
            const auto sz = Screen::size();
            if (sz != size_) {
                size_ = sz;
                redraw = true;
            }
        }
        if (live.now_ns - model_.last_snapshot_ns() >= interval_ns_) {
            model_.snapshot(live.now_ns, &live, view_);
            redraw = true;
            ++frames_;
        }
        if (redraw && model_.has_frame()) show();
        if (iterations && frames_ >= iterations) {
            reason = "iolens top: " + std::to_string(iterations) + " intervals shown (-n)";
            return true;
        }
        return false;
    }

    // After the recording ended: the last stretch, from the whole model.
    void finish(uint64_t now_ns) {
        screen_.close();
        if (!model_.started()) return;
        model_.snapshot(now_ns, nullptr, view_);
        if (batch_) show();
    }
    const std::string& problem() const { return model_.problem(); }

private:
    void show() {
        if (batch_) {
            report::TopLayout layout;
            layout.batch = true;
            std::string s;
            for (const auto& l : report::top_lines(model_.frame(), layout)) s += l + "\n";
            s += "\n";
            std::fwrite(s.data(), 1, s.size(), stdout);
            std::fflush(stdout);
            return;
        }
        report::TopLayout layout{size_.first, size_.second, false, 0};
        screen_.draw(report::top_lines(model_.frame(), layout));
    }

    LiveModel model_;
    analysis::TopView view_;
    const uint64_t interval_ns_;
    const bool batch_;
    Screen screen_;
    std::pair<size_t, size_t> size_{0, 0};
    uint64_t frames_ = 0;
};

int run_top(const TopCliOptions& o) {
    const auto started = std::chrono::steady_clock::now().time_since_epoch();
    capture::RecordOptions ro;
    if (!o.command.empty() && o.pid != 0) {
        spdlog::error("give either a command to run or -p PID, not both");
        return 2;
    }
    if (!o.cgroup.empty() && (o.pid != 0 || !o.command.empty())) {
        spdlog::error("give one of a command, -p PID or --cgroup, not several");
        return 2;
    }
    if (o.command.empty() && o.pid == 0 && o.cgroup.empty()) {
        spdlog::error("nothing to watch: give a command (iolens top -- CMD ARGS), -p PID or --cgroup PATH");
        return 2;
    }
    if (!o.cgroup.empty()) {
        auto cg = capture::resolve_cgroup(o.cgroup);
        if (!cg) {
            spdlog::error("{}", cg.error().message);
            return 2;
        }
        ro.cgroup = *cg;
        ro.probe.target_cgroup = cg->id;
    }
    auto interval = parse_duration(o.interval);
    if (!interval || *interval < 100'000'000) {
        spdlog::error("-i {}: {}", o.interval, interval ? "at least 100ms" : interval.error().message);
        return 2;
    }
    if (!o.duration.empty()) {
        auto d = parse_duration(o.duration);
        if (!d) {
            spdlog::error("{}", d.error().message);
            return 2;
        }
        ro.duration_ns = *d;
    }
    auto view = parse_view(o.view);
    if (!view) {
        spdlog::error("{}", view.error().message);
        return 2;
    }
    if (o.pid) ro.pid = static_cast<pid_t>(o.pid);
    ro.command = o.command;
    ro.started_mono_ns =
        static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(started).count());
    std::string scratch;  // the temporary recording's directory, without -o
    if (o.output.empty()) {
        std::string tmpl = "/tmp/iolens-top.XXXXXX";
        if (!mkdtemp(tmpl.data())) {
            spdlog::error("cannot create a directory in /tmp for the live recording");
            return 1;
        }
        scratch = tmpl;
        ro.output_path = scratch + "/top.iolens";
    } else {
        ro.output_path = o.output;
        ro.force = o.force;
        if (auto r = check_output_path(ro.output_path, ro.force, "the recording"); !r) {
            spdlog::error("{}", r.error().message);
            return 2;
        }
    }
    const auto cleanup = [&]() {
        if (scratch.empty()) return;
        unlink(ro.output_path.c_str());
        rmdir(scratch.c_str());
    };
    auto features = probes::Features::probe();
    if (!features.can_trace()) {
        spdlog::error("iolens top needs CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN): run it as root");
        cleanup();
        return 1;
    }
    // Not a terminal (a pipe, a log file): one block per interval, as -b.
    const bool batch = o.batch || !isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO);
    if (batch && !o.batch) spdlog::info("not a terminal: one block per interval, as with -b");
    LiveView live(*view, *interval, batch);
    ro.chunk_observer = [&live](recording::ChunkType t, std::span<const std::byte> p) {
        live.on_chunk(t, p);
    };
    const uint64_t iterations = o.iterations;
    ro.on_tick = [&live, iterations](const capture::RecordOptions::LiveStatus& s, std::string& reason) {
        return live.on_tick(s, reason, iterations);
    };
    auto outcome = capture::run_record(ro, features);
    live.finish(static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                          std::chrono::steady_clock::now().time_since_epoch())
                                          .count()));
    if (!live.problem().empty()) spdlog::warn("live model: {}", live.problem());
    if (!outcome) {
        spdlog::error("{}", outcome.error().message);
        cleanup();
        return outcome.error().exit_status;
    }
    if (scratch.empty()) spdlog::info("recording written to {}", outcome->recording_path);
    cleanup();
    return outcome->exit_status;
}

}  // namespace

void register_top(CLI::App& app, Action& action) {
    auto opts = std::make_shared<TopCliOptions>();
    auto* sub =
        app.add_subcommand("top", "Watch a job's I/O live: a command (after --) or a process tree (-p)");
    sub->add_option("-p,--pid", opts->pid, "Watch this process and every process it starts")
        ->check(whole_number(1, 0x3fffffff));
    sub->add_option("--cgroup", opts->cgroup,
                    "Watch every process of this cgroup v2 group and those that join it (as record --cgroup)")
        ->type_name("PATH|ID")
        ->check(not_empty());
    sub->add_option("-i,--interval", opts->interval, "Refresh every INTERVAL (at least 100ms)")
        ->type_name("INTERVAL")
        ->capture_default_str()
        ->check(not_empty());
    sub->add_option("-d,--duration", opts->duration, "Stop watching after this long")
        ->type_name("DURATION")
        ->check(not_empty());
    sub->add_flag(
        "-b,--batch", opts->batch,
        "Print one block per interval (for logs and pipes, like top -b) instead of the full screen");
    sub->add_option("-n,--iterations", opts->iterations, "Stop after N intervals")
        ->check(whole_number(1, 1'000'000'000));
    sub->add_option("--sort", opts->view, "The table shown first: ranks, processes, files or devices")
        ->capture_default_str();
    sub->add_option("-o,--output", opts->output, "Also keep the recording in FILE (default: none kept)")
        ->type_name("FILE");
    sub->add_flag("-f,--force", opts->force, "Replace an existing recording file");
    sub->add_option("command", opts->command, "The command to run and watch")
        ->type_name("COMMAND")
        ->take_all();
    sub->footer(
        "Keys (full screen): r ranks, p processes, f files, d devices, q quit (a command top started\n"
        "then runs on untraced and is waited for; Ctrl-C is passed to it).\n"
        "Examples:\n  iolens top -- python train.py\n  iolens top -p 4242 -i 2s\n"
        "  iolens top -b -i 5s -o run.iolens -- python train.py > top.log\n\n"
        "Exit status: the watched command's; 1 when iolens itself failed, 2 for a usage error.");
    sub->callback([opts, &action]() { action = [opts]() { return run_top(*opts); }; });
}

}  // namespace iolens::cli
