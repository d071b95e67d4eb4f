#include "report/terminal_renderer.h"

#include <cstdio>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "report/findings_renderer.h"
#include "report/terminal_sections.h"
#include "report/text_format.h"

namespace iolens::report {

namespace detail {

void print_lines(Ctx& c, const std::vector<std::string>& lines, const char* sgr) {
    for (const auto& l : lines) c.out << (sgr ? c.paint(sgr, l) : l) << '\n';
}

void section_title(Ctx& c, const std::string& title, const std::string& note) {
    c.out << '\n' << c.paint(kBold, title) << (note.empty() ? "" : " " + note) << '\n';
}

std::string percent(std::optional<double> fraction) {
    if (!fraction) return "-";
    return fmt::format("{:.1f}%", *fraction * 100.0);
}

void not_available(Ctx& c, const recording::CaptureInfo& cap, std::string_view probe) {
    const std::string line = "n/a: " + recording::probe_missing_reason(cap, probe);
    c.out << "  " << c.paint(kWarn, elide_end(line, c.width - 2)) << '\n';
}

}  // namespace detail

namespace {

using model::Report;
using namespace detail;

std::string target_of(const recording::CaptureInfo& cap) {
    if (!cap.command.empty()) return shell_join(cap.command);
    if (cap.pids.empty()) return "(target not recorded)";
    std::string s = cap.pids.size() == 1 ? "pid " : "pids ";
    for (size_t i = 0; i < cap.pids.size(); ++i) s += (i ? ", " : "") + std::to_string(cap.pids[i]);
    return s;
}

// "12.3% of job CPU", or nothing when the job's CPU time is unknown or zero.
std::string share_of_job(uint64_t ns, const recording::CostInfo& cost) {
    const auto share = cost.share_of_job_cpu(ns);
    return share ? percent(share) + " of job CPU" : "";
}

// What tracing cost: BPF programs (their own timing or the kernel's
// statistics), the recorder, attach.
void cost_line(Ctx& c, const recording::CostInfo& cost) {
    std::vector<std::string> items;
    if (cost.bpf.empty()) {
        items.push_back("BPF run time n/a (" + cost.bpf_stats_unavailable + ")");
    } else {
        const uint64_t runs = cost.bpf_runs(), ns = cost.bpf_run_ns();
        std::string bpf = "BPF " + human_ns(ns) + " in " + human_count(runs) + " runs";
        if (cost.bpf_timed_every) {
            // Every run counted, 1 in N timed by the programs themselves.
            bpf = "BPF ~" + human_ns(ns) + " in " + human_count(runs) + " runs (1 in " +
                  std::to_string(cost.bpf_timed_every) + " timed";
            if (const auto each = cost.bpf_ns_per_run()) bpf += "; " + human_ns(*each) + " each";
            bpf += ")";
        } else if (cost.bpf_sampled_share < 1.0) {
            char share[32];
            std::snprintf(share, sizeof(share), "%.0f%%", 100.0 * cost.bpf_sampled_share);
            bpf =
                "BPF ~" + human_ns(ns) + " in ~" + human_count(runs) + " runs (from a " + share + " sample)";
        }
        if (const auto each = cost.bpf_ns_per_run(); each && !cost.bpf_timed_every)
            bpf += " (" + human_ns(*each) + " each)";
        if (auto share = share_of_job(ns, cost); !share.empty()) bpf += ", " + share;
        items.push_back(bpf);
    }
    std::string rec = "recorder CPU " + human_ns(cost.recorder_cpu_ns);
    if (auto share = share_of_job(cost.recorder_cpu_ns, cost); !share.empty()) rec += ", " + share;
    items.push_back(rec);
    items.push_back("recorder peak RSS " + human_bytes(cost.recorder_max_rss_bytes));
    items.push_back("attach " + human_ns(cost.attach_ns));
    if (!cost.job_cpu_ns)
        items.push_back("job CPU n/a (" + cost.job_cpu_unavailable + ")");
    else
        items.push_back("job CPU " + human_ns(*cost.job_cpu_ns));
    std::string text = "iolens cost: ";
    for (size_t i = 0; i < items.size(); ++i) text += (i ? "; " : "") + items[i];
    print_lines(c, wrap(text, c.width, "  ", "    "));
}

void header(Ctx& c, const Report& r) {
    const auto& cap = r.capture;
    c.out << c.paint(kBold, "iolens") << "  " << elide_middle(target_of(cap), c.width - 8) << '\n';

    std::string lost = count_fit(cap.lost_events, 13) + " lost";
    c.out << "  duration " << human_ns(cap.duration_ns) << ", " << count_fit(cap.events, 13) << " events, "
          << (cap.lost_events ? c.paint(kAlert, lost) : lost) << '\n';

    std::vector<std::string> about;
    if (!cap.hostname.empty()) about.push_back("host " + cap.hostname);
    if (!cap.cgroup_path.empty()) about.push_back("cgroup " + cap.cgroup_path);
    if (!cap.kernel_release.empty()) about.push_back("kernel " + cap.kernel_release);
    if (!cap.iolens_version.empty()) about.push_back("iolens " + cap.iolens_version);
    if (cap.exit_status) about.push_back("command exit status " + std::to_string(*cap.exit_status));
    if (!cap.stop_reason.empty()) about.push_back("ended: " + cap.stop_reason);
    print_lines(c, join_items(about, c.width, "  "));

    if (cap.cost) cost_line(c, *cap.cost);

    if (cap.lost_events) {
        std::string detail;
        for (const auto& [reason, n] : cap.lost_detail)
            if (n) detail += (detail.empty() ? "" : ", ") + reason + " " + human_count(n);
        std::string why = "events were lost";
        if (!detail.empty()) why += " (" + detail + ")";
        why += ": counts and times are lower bounds.";
        print_lines(c, wrap(why, c.width, "warning: ", "         "), kAlert);
    }
    if (cap.partial) {
        std::string reason =
            cap.partial_reason.empty() ? "the recording did not end cleanly" : cap.partial_reason;
        while (!reason.empty() && (reason.back() == '.' || reason.back() == ' ')) reason.pop_back();
        print_lines(
            c,
            wrap("PARTIAL REPORT: " + reason + ". It covers only what was recorded before that point.",
                 c.width, "!! ", "!! "),
            kAlert);
    }
    for (const auto& limit : r.limits)
        print_lines(c, wrap("limit reached: " + limit + ".", c.width, "warning: ", "         "), kWarn);
    for (const auto& p : cap.probes) {
        if (p.attached) continue;
        std::string text = "probe " + p.name + (p.hook.empty() ? "" : " (" + p.hook + ")") + " not attached" +
                           (p.reason.empty() ? "" : ": " + p.reason);
        print_lines(c, wrap(text, c.width, "warning: ", "         "), kWarn);
    }
}

// Start-up (model::CallSplit): the calls before the first data read or write.
void startup_line(Ctx& c, const Report& r) {
    const auto& s = r.split;
    if (!s.known) return;
    uint64_t calls = 0;
    for (const auto& o : s.startup) calls += o.calls;
    if (calls == 0) return;
    std::string line =
        "start-up (" + human_ns(s.startup_ns) +
        (s.startup_end_ns ? ", to the first data read or write" : ", no data read or written") +
        "): " + human_count(calls) + " calls, " + human_ns(s.startup_time_ns()) + " in file I/O, " +
        human_bytes(s.startup[IOLENS_OP_READ].bytes) + " read; " + human_count(s.software_files) +
        " software files, " + human_count(s.data_files) + " data files";
    print_lines(c, wrap(line, c.width, "  ", "    "));
}

void class_table(Ctx& c, const Report& r) {
    c.out << '\n' << c.paint(kBold, "Calls by class") << '\n';
    c.out << "  " << pad_right("class", 8) << pad_left("calls", 12) << pad_left("errors", 9)
          << pad_left("bytes", 11) << pad_left("time", 10) << pad_left("p50", 10) << pad_left("p99", 10)
          << '\n';
    for (int op = 0; op < model::kOpCount; ++op) {
        const auto& s = r.totals[op];
        if (s.calls == 0) continue;
        // "-" where a class moves no bytes at all (open, close, ...); "0 B"
        // where bytes were asked for and none came back.
        // mmap moves nothing itself: its line below says what was mapped
        // and what the mappings brought in.
        const std::string bytes =
            op == IOLENS_OP_MMAP || (s.bytes == 0 && s.requested_bytes == 0) ? "-" : human_bytes(s.bytes);
        const std::string errors = pad_left(count_fit(s.errors, 8), 9);
        c.out << "  " << pad_right(model::op_name(op), 8) << pad_left(count_fit(s.calls, 11), 12)
              << (s.errors ? c.paint(kRed, errors) : errors) << pad_left(bytes, 11)
              << pad_left(human_ns(s.time_ns), 10) << pad_left(human_ns(s.latency_ns.percentile(0.50)), 10)
              << pad_left(human_ns(s.latency_ns.percentile(0.99)), 10) << '\n';
    }
    if (const auto& m = r.totals[IOLENS_OP_MMAP]; m.calls) {
        std::string line = "mmap: " + human_bytes(m.requested_bytes) + " mapped";
        if (recording::probe_live(r.capture, recording::kProbePageCache))
            line += "; " + human_bytes(r.page_cache.fault_bytes) + " faulted in through file mappings";
        print_lines(c, wrap(line, c.width, "  ", "    "));
    }
    startup_line(c, r);
}

// Which paths other than plain syscalls carried the calls: only when some did.
void path_table(Ctx& c, const Report& r) {
    if (!r.paths.any_other_path()) return;
    c.out << '\n' << c.paint(kBold, "Calls by data path") << " (counted in the classes above)\n";
    c.out << "  " << pad_right("path", 10) << pad_right("class", 8) << pad_left("calls", 12)
          << pad_left("errors", 9) << pad_left("bytes", 11) << pad_left("time", 10) << '\n';
    for (int path = 0; path < model::kPathCount; ++path)
        for (int op = 0; op < model::kOpCount; ++op) {
            const auto& o = r.paths.by[path][op];
            if (!o.calls) continue;
            const std::string bytes = o.bytes == 0 && o.requested_bytes == 0 ? "-" : human_bytes(o.bytes);
            c.out << "  " << pad_right(model::path_name(path), 10) << pad_right(model::op_name(op), 8)
                  << pad_left(count_fit(o.calls, 11), 12) << pad_left(count_fit(o.errors, 8), 9)
                  << pad_left(bytes, 11) << pad_left(human_ns(o.time_ns), 10) << '\n';
        }
}

// How deep each process kept its AIO and io_uring queue: only when some did.
void async_depth_table(Ctx& c, const Report& r) {
    std::vector<const model::ProcessStats*> async;
    for (const auto& p : r.processes)
        if (p.async.requests) async.push_back(&p);
    if (async.empty()) return;
    std::stable_sort(async.begin(), async.end(),
                     [](const auto* a, const auto* b) { return a->async.requests > b->async.requests; });
    if (async.size() > c.top_n) async.resize(c.top_n);
    c.out << '\n' << c.paint(kBold, "Async requests in flight") << " (AIO and io_uring)\n";
    c.out << "  " << pad_left("pid", 7) << ' ' << pad_right("comm", 15) << pad_left("requests", 11)
          << pad_left("busy", 10) << pad_left("mean depth", 12) << pad_left("max depth", 11) << '\n';
    for (const auto* p : async) {
        const auto mean = p->async.mean_depth();
        c.out << "  " << pad_left(std::to_string(p->info.pid), 7) << ' '
              << pad_right(elide_end(p->info.comm, 15), 15) << pad_left(count_fit(p->async.requests, 10), 11)
              << pad_left(human_ns(p->async.busy_ns), 10)
              << pad_left(mean ? fmt::format("{:.2f}", *mean) : std::string("-"), 12)
              << pad_left(count_fit(p->async.max_depth, 10), 11) << '\n';
    }
}

// " [copy]", " [aio,io_uring]": the paths other than syscalls a file's calls took.
std::string path_marker(const model::PathTable& t) {
    std::string m;
    for (int path = 1; path < model::kPathCount; ++path) {
        bool used = false;
        for (const auto& o : t.by[path]) used |= o.calls != 0;
        if (used) m += (m.empty() ? " [" : ",") + std::string(model::path_name(path));
    }
    return m.empty() ? m : m + "]";
}

void histograms(Ctx& c, const Report& r) {
    const auto& read = r.totals[IOLENS_OP_READ];
    if (read.size_bytes.count()) {
        c.out << '\n' << c.paint(kBold, "Read sizes (bytes returned per successful read)") << '\n';
        render_log2_histogram(read.size_bytes, "bytes", c.out, static_cast<int>(c.width));
    }
    if (read.latency_ns.count()) {
        c.out << '\n' << c.paint(kBold, "Read latency (nanoseconds per call)") << '\n';
        render_log2_histogram(read.latency_ns, "nsecs", c.out, static_cast<int>(c.width));
    }
}

void process_table(Ctx& c, const Report& r) {
    const auto top = model::top_processes(r, c.top_n);
    if (top.empty()) return;
    c.out << '\n'
          << c.paint(kBold, "Top processes by bytes read + written") << " (" << human_count(top.size())
          << " of " << human_count(r.processes.size()) << ")\n";
    c.out << "  " << pad_left("pid", 7) << ' ' << pad_right("comm", 15) << pad_left("reads", 11)
          << pad_left("read bytes", 11) << pad_left("writes", 10) << pad_left("write bytes", 12)
          << pad_left("io time", 10) << '\n';
    for (const auto* p : top) {
        const auto& rd = p->ops[IOLENS_OP_READ];
        const auto& wr = p->ops[IOLENS_OP_WRITE];
        c.out << "  " << pad_left(std::to_string(p->info.pid), 7) << ' '
              << pad_right(elide_end(p->info.comm, 15), 15) << pad_left(count_fit(rd.calls, 10), 11)
              << pad_left(human_bytes(rd.bytes), 11) << pad_left(count_fit(wr.calls, 9), 10)
              << pad_left(human_bytes(wr.bytes), 12) << pad_left(human_ns(model::total_time_ns(p->ops)), 10)
              << '\n';
    }
}

void file_table(Ctx& c, const Report& r) {
    if (r.files.empty()) return;
    const size_t n = std::min(c.top_n, r.files.size());
    // Each count beside its own bytes: read calls with bytes read, then the
    // bytes written (the ranking is read + written).
    const size_t path_w = c.width - 2 - 8 - 10 - 9 - 10;
    c.out << '\n'
          << c.paint(kBold, "Top files by bytes read + written") << " (" << human_count(n) << " of "
          << human_count(r.files_total) << ")\n";
    c.out << "  " << pad_right("path", path_w) << pad_left("reads", 8) << pad_left("read", 10)
          << pad_left("written", 9) << pad_left("seq/rand%", 10) << '\n';
    for (size_t i = 0; i < n; ++i) {
        const auto& f = r.files[i];
        const std::string marker = path_marker(f.paths);
        const size_t name_w = path_w - 1 > marker.size() + 8 ? path_w - 1 - marker.size() : path_w - 1;
        c.out << "  " << pad_right(elide_middle(f.path, name_w) + marker, path_w)
              << pad_left(count_fit(f.ops[IOLENS_OP_READ].calls, 7), 8)
              << pad_left(human_bytes(f.ops[IOLENS_OP_READ].bytes), 10)
              << pad_left(human_bytes(f.ops[IOLENS_OP_WRITE].bytes), 9)
              << pad_left(seq_rand(model::sequential_share(f.sequential, f.random)), 10) << '\n';
    }
}

size_t digits(uint64_t v) { return std::to_string(v).size(); }

}  // namespace

void render_log2_histogram(const model::Histogram& hist, const char* unit, std::ostream& out, int width) {
    const auto buckets = hist.buckets(/*fill_gaps=*/true);
    if (buckets.empty()) return;
    // BCC prints inclusive ranges ("4 -> 7"); our hi is exclusive, except that
    // the last bucket also holds UINT64_MAX itself.
    const auto shown_hi = [](const model::Histogram::Bucket& b) {
        return b.hi == UINT64_MAX ? UINT64_MAX : b.hi - 1;
    };
    size_t w = 10;
    uint64_t max_count = 0;
    for (const auto& b : buckets) {
        w = std::max({w, digits(b.lo), digits(shown_hi(b))});
        max_count = std::max(max_count, b.count);
    }
    const size_t cw = std::max<size_t>(8, digits(max_count));
    const size_t fixed = 2 * w + 4 + 3 + cw + 2 + 1;  // everything but the stars
    const size_t bar = std::clamp<size_t>(width > 0 && size_t(width) > fixed ? width - fixed : 0, 10, 40);

    out << std::string(w / 2, ' ') << pad_right(unit, 2 * w + 4 - w / 2) << " : " << pad_right("count", cw)
        << " distribution\n";
    for (const auto& b : buckets) {
        const auto stars = static_cast<size_t>(static_cast<double>(b.count) / static_cast<double>(max_count) *
                                               static_cast<double>(bar));
        out << pad_left(std::to_string(b.lo), w) << " -> " << pad_right(std::to_string(shown_hi(b)), w)
            << " : " << pad_right(std::to_string(b.count), cw) << " |"
            << std::string(std::min(stars, bar), '*') << std::string(bar - std::min(stars, bar), ' ')
            << "|\n";
    }
}

void render_terminal(const Report& r, std::ostream& out, const TerminalOptions& options) {
    Ctx c{out, Painter(options.color), static_cast<size_t>(std::max(options.width, 72)), options.top_n};
    header(c, r);
    bool any = false;
    for (const auto& s : r.totals) any |= s.calls != 0;
    if (!any) {
        c.out << "\nNo traced I/O calls were recorded.\n";
        // Faults on mappings made before the capture, and the disks' traffic,
        // can still be there; absent probes need no n/a on an empty report.
        if (recording::probe_live(r.capture, recording::kProbePageCache)) page_cache_section(c, r);
        if (recording::probe_live(r.capture, recording::kProbeBlock)) block_section(c, r);
        return;
    }
    class_table(c, r);
    path_table(c, r);
    async_depth_table(c, r);
    epochs_section(c, r);
    nodes_section(c, r);
    ranks_section(c, r);
    histograms(c, r);
    process_table(c, r);
    file_table(c, r);
    if (r.files_omitted)
        print_lines(c, wrap(human_count(r.files_omitted) +
                                " more files, each with fewer bytes, are counted in the totals "
                                "but not listed in this report.",
                            c.width, "  ", "  "));
    call_sites_section(c, r);
    page_cache_section(c, r);
    block_section(c, r);
    findings_section(c, r);
}

}  // namespace iolens::report
