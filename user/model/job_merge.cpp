#include "model/job_merge.h"

#include <algorithm>
#include <map>
#include <set>

#include "model/dl_attribution.h"

namespace iolens::model {

namespace {

void merge_ops(OpTable& into, const OpTable& from) {
    for (int op = 0; op < kOpCount; ++op) into[op].merge(from[op]);
}

void add_block(ProcessBlock& into, const ProcessBlock& from) {
    into.read_bytes += from.read_bytes;
    into.write_bytes += from.write_bytes;
    into.requests += from.requests;
}

void add_async(AsyncDepthStats& into, const AsyncDepthStats& from) {
    into.requests += from.requests;
    into.request_ns += from.request_ns;
    into.busy_ns += from.busy_ns;
    into.max_depth = std::max(into.max_depth, from.max_depth);
    into.clipped += from.clipped;
}

uint64_t shifted(uint64_t t, int64_t offset) {
    if (t == 0) return 0;  // "before the capture" / "still running" stay so
    const int64_t v = static_cast<int64_t>(t) + offset;
    return v > 0 ? static_cast<uint64_t>(v) : 1;
}

// realtime - monotonic of a recording: from its start anchor, or (older
// recordings) from its start times.
int64_t realtime_minus_monotonic(const CaptureInfo& c) {
    if (c.anchor_start_realtime_ns && c.anchor_start_monotonic_ns)
        return static_cast<int64_t>(c.anchor_start_realtime_ns) -
               static_cast<int64_t>(c.anchor_start_monotonic_ns);
    return static_cast<int64_t>(c.start_unix_ns) - static_cast<int64_t>(c.start_mono_ns);
}

std::string job_text(const CaptureInfo& c) {
    return c.job_id.empty() ? std::string("no job id") : "job " + c.job_id + " (" + c.job_id_source + ")";
}

}  // namespace

// What the conflict checks need of a part already merged.
struct JobMerger::Seen {
    std::string path;
    std::string job_id, job_id_source, host;
    uint64_t start_unix_ns = 0, end_unix_ns = 0;
};

namespace {

Result<void> check_pair(const std::string& a_path, const JobMerger::Seen& a, const std::string& b_path,
                        const CaptureInfo& b, const MergeOptions& o) {
    if (!o.allow_mixed && a.job_id != b.job_id) {
        CaptureInfo ac;
        ac.job_id = a.job_id;
        ac.job_id_source = a.job_id_source;
        return make_error(a_path + " is " + job_text(ac) + " and " + b_path + " is " + job_text(b) +
                          ": recordings of different jobs (--allow-mixed merges them anyway)");
    }
    const uint64_t b_end = b.start_unix_ns + b.duration_ns;
    if (a.host == b.hostname && a.start_unix_ns < b_end && b.start_unix_ns < a.end_unix_ns)
        return make_error(a_path + " and " + b_path + " both recorded host " + a.host +
                          " over overlapping times: the same node twice (a copy of one recording, or two "
                          "recorders on one node); give each node's recording once");
    return {};
}

void merge_epoch(EpochStats& into, const EpochStats& from) {
    if (from.source == EpochSource::Marker) into.source = EpochSource::Marker;
    if (!into.marker_number) into.marker_number = from.marker_number;
    into.start_ns = std::min(into.start_ns, from.start_ns);
    // 0: still running at the end of some node's capture.
    into.end_ns = into.end_ns && from.end_ns ? std::max(into.end_ns, from.end_ns) : 0;
    into.steps = std::max(into.steps, from.steps);
    merge_ops(into.ops, from.ops);
    into.page_cache.merge(from.page_cache);
    add_block(into.block, from.block);
    into.ranks.insert(into.ranks.end(), from.ranks.begin(), from.ranks.end());
    into.rank_sums.wall_ns += from.rank_sums.wall_ns;
    into.rank_sums.io_time_ns += from.rank_sums.io_time_ns;
    into.rank_sums.critical_io_ns += from.rank_sums.critical_io_ns;
}

void merge_file(FileStats& into, const FileStats& from) {
    into.size = std::max(into.size, from.size);
    merge_ops(into.ops, from.ops);
    into.paths.merge(from.paths);
    into.sequential += from.sequential;
    into.random += from.random;
    into.page_cache.merge(from.page_cache);
    add_async(into.async, from.async);
}

NodeSummary summary_of(const std::string& path, const Report& r, int64_t offset) {
    const auto& c = r.capture;
    NodeSummary n;
    n.host = c.hostname;
    n.recording = path;
    n.job_id = c.job_id;
    n.kernel_release = c.kernel_release;
    n.start_unix_ns = c.start_unix_ns;
    n.duration_ns = c.duration_ns;
    n.clock_offset_ns = offset;
    n.anchor_uncertainty_ns = c.anchor_uncertainty_ns;
    n.events = c.events;
    n.lost_events = c.lost_events;
    n.partial = c.partial;
    n.totals = r.totals;
    n.page_cache = r.page_cache;
    for (const auto& k : r.ranks) {
        n.ranks.push_back(k.rank);
        n.io_time_ns += k.io_time_ns;
        n.critical_io_ns += k.critical_io_ns;
    }
    for (const auto& d : r.block_devices) n.device_read_bytes += d.read.bytes;
    return n;
}

}  // namespace

JobMerger::JobMerger(MergeOptions options) : options_(options) {}
JobMerger::~JobMerger() = default;

Result<void> JobMerger::add(std::string path, Report r) {
    // Conflicts with every part before: different jobs, one node twice. A
    // rank number in two recordings is one rank seen twice, unless it is the
    // default rank 0 of a recording without rank variables (one process tree
    // per node), or the recordings are of different jobs (--allow-mixed):
    // then each node's rank stays apart, named with its node.
    for (const auto& a : seen_)
        if (auto c = check_pair(a.path, a, path, r.capture, options_); !c) return c.error();
    for (const auto& k : r.ranks) {
        if (options_.allow_mixed || k.rank_source == "default") continue;
        if (const auto it = rank_at_.find(k.rank); it != rank_at_.end())
            return make_error("rank " + std::to_string(k.rank) + " is in both " + seen_[it->second].path +
                              " (host " + seen_[it->second].host + ") and " + path + " (host " +
                              r.capture.hostname +
                              "): ranks must be unique in a job (two runs of one job are compared with "
                              "iolens diff)");
    }
    for (const auto& k : r.ranks)
        if (!options_.allow_mixed && k.rank_source != "default") rank_at_.emplace(k.rank, seen_.size());
    const auto& c = r.capture;
    seen_.push_back(
        {path, c.job_id, c.job_id_source, c.hostname, c.start_unix_ns, c.start_unix_ns + c.duration_ns});
    if (seen_.size() == 1) {  // one part is its own report: held until a second comes
        first_ = std::make_unique<std::pair<std::string, Report>>(std::move(path), std::move(r));
        return {};
    }
    if (first_) {
        auto held = std::move(first_);
        fold(std::move(held->first), std::move(held->second));
    }
    fold(std::move(path), std::move(r));
    return {};
}

void JobMerger::fold(std::string path, Report r) {
    auto& m = merged_;
    auto& cap = m.capture;
    const bool first = !started_;
    if (first) {
        started_ = true;
        ref_ = realtime_minus_monotonic(r.capture);
        cap = r.capture;
        cap.hostname.clear();
        cap.events = cap.lost_events = 0;
        cap.lost_detail.clear();
        cap.kernel_counters.clear();
        cap.pids.clear();
        cap.partial = false;
        cap.partial_reason.clear();
        // The recorders' cost: summed when every node has one (BPF run-time
        // statistics stay in each node's own report).
        cost_ = recording::CostInfo{};
        cost_->bpf_stats_unavailable =
            "a report of many recordings: each node's BPF cost is in the report of its own recording";
        job_cpu_ = 0;
    }
    const auto& c = r.capture;
    const int64_t offset = realtime_minus_monotonic(c) - ref_;
    m.nodes.push_back(summary_of(path, r, offset));
    const std::string& host = c.hostname;

    cap.hostname += (cap.hostname.empty() ? "" : ",") + host;
    if (c.job_id != cap.job_id) cap.job_id_source = "mixed";
    cap.events += c.events;
    cap.lost_events += c.lost_events;
    for (const auto& [k, v] : c.lost_detail) cap.lost_detail[k] += v;
    for (const auto& [k, v] : c.kernel_counters) cap.kernel_counters[k] += v;
    cap.pids.insert(cap.pids.end(), c.pids.begin(), c.pids.end());
    if (c.partial) {
        cap.partial = true;
        cap.partial_reason += (cap.partial_reason.empty() ? "" : "; ") + host + ": " + c.partial_reason;
    }
    if (c.exit_status && *c.exit_status != 0 && (!cap.exit_status || *cap.exit_status == 0))
        cap.exit_status = c.exit_status;
    cap.start_unix_ns = std::min(cap.start_unix_ns, c.start_unix_ns);
    cap.anchor_uncertainty_ns = std::max(cap.anchor_uncertainty_ns, c.anchor_uncertainty_ns);
    const uint64_t start = shifted(c.start_mono_ns, offset);
    first_start_ = std::min(first_start_, start);
    last_end_ = std::max(last_end_, start + c.duration_ns);
    releases_.insert(c.kernel_release);
    if (!c.stop_reason.empty()) stops_.insert(c.stop_reason);
    for (const auto& [dev, name] : c.devices) cap.devices.emplace(dev, name);
    if (cost_ && c.cost) {
        cost_->attach_ns = std::max(cost_->attach_ns, c.cost->attach_ns);
        cost_->recorder_cpu_ns += c.cost->recorder_cpu_ns;
        cost_->recorder_max_rss_bytes =
            std::max(cost_->recorder_max_rss_bytes, c.cost->recorder_max_rss_bytes);
        job_cpu_ = job_cpu_ && c.cost->job_cpu_ns ? std::optional<uint64_t>(*job_cpu_ + *c.cost->job_cpu_ns)
                                                  : std::nullopt;
    } else {
        cost_.reset();
    }

    merge_ops(m.totals, r.totals);
    m.paths.merge(r.paths);
    m.page_cache.merge(r.page_cache);
    add_block(m.block_unattributed, r.block_unattributed);
    for (auto& p : r.processes) {
        p.node = host;
        p.info.start_ns = shifted(p.info.start_ns, offset);
        p.info.end_ns = shifted(p.info.end_ns, offset);
        m.processes.push_back(std::move(p));
    }
    for (auto& d : r.block_devices) {
        d.name = host + ":" +
                 (d.name.empty() ? std::to_string(recording::dev_major(d.dev)) + ":" +
                                       std::to_string(recording::dev_minor(d.dev))
                                 : d.name);
        m.block_devices.push_back(std::move(d));
    }
    m.files_total += r.files_total;
    for (auto& f : r.files) {
        // A file named by its device and inode, or by the tail of its
        // path, is that node's own: never one row with another node's.
        if (f.path.rfind("<dev ", 0) == 0 || f.path.rfind(".../", 0) == 0) f.path = host + ":" + f.path;
        const auto [it, fresh] = file_at_.emplace(f.path, m.files.size());
        if (fresh) {
            m.files.push_back(std::move(f));
        } else {
            merge_file(m.files[it->second], f);
            --m.files_total;  // one file, read on two nodes (a shared file system)
        }
    }
    for (auto& k : r.ranks) {
        k.node = host;
        m.ranks.push_back(std::move(k));
    }
    for (auto& e : r.epochs) {
        e.start_ns = shifted(e.start_ns, offset);
        e.end_ns = shifted(e.end_ns, offset);
        for (auto& er : e.ranks) {
            er.start_ns = shifted(er.start_ns, offset);
            er.end_ns = shifted(er.end_ns, offset);
        }
        const auto [it, fresh] = epoch_at_.emplace(e.index, m.epochs.size());
        if (fresh)
            m.epochs.push_back(std::move(e));
        else
            merge_epoch(m.epochs[it->second], e);
    }
    // Start-up and data: known only when every node's is.
    m.split.known = first ? r.split.known : m.split.known && r.split.known;
    if (r.split.startup_end_ns) {
        const uint64_t end = shifted(r.split.startup_end_ns, offset);
        m.split.startup_end_ns = m.split.startup_end_ns ? std::min(m.split.startup_end_ns, end) : end;
    }
    m.split.startup_ns = std::max(m.split.startup_ns, r.split.startup_ns);
    merge_ops(m.split.startup, r.split.startup);
    merge_ops(m.split.data, r.split.data);
    m.split.flush.merge(r.split.flush);
    m.split.data_files += r.split.data_files;
    m.split.software_files += r.split.software_files;
    for (const auto& l : r.limits) m.limits.push_back(host + ": " + l);
    if (m.epochs_note.empty() && !r.epochs_note.empty()) m.epochs_note = host + ": " + r.epochs_note;
}

Result<Report> JobMerger::finish() {
    if (seen_.empty()) return make_error("no recordings to merge");
    if (first_) return std::move(first_->second);
    Report m = std::move(merged_);
    auto& cap = m.capture;
    if (cost_) {
        cost_->job_cpu_ns = job_cpu_;
        if (!job_cpu_) cost_->job_cpu_unavailable = "not known for every node";
    }
    cap.cost = cost_;
    cap.start_mono_ns = first_start_;
    cap.duration_ns = last_end_ > first_start_ ? last_end_ - first_start_ : 0;
    if (releases_.size() > 1) {
        cap.kernel_release.clear();
        for (const auto& k : releases_) cap.kernel_release += (cap.kernel_release.empty() ? "" : ",") + k;
    }
    cap.stop_reason.clear();
    for (const auto& s : stops_) cap.stop_reason += (cap.stop_reason.empty() ? "" : "; ") + s;

    std::sort(m.processes.begin(), m.processes.end(), [](const ProcessStats& a, const ProcessStats& b) {
        return a.node != b.node ? a.node < b.node : a.info.pid < b.info.pid;
    });
    std::stable_sort(m.files.begin(), m.files.end(), [](const FileStats& a, const FileStats& b) {
        return rw_bytes(a.ops) > rw_bytes(b.ops);
    });
    m.files_omitted = m.files_total - std::min<uint64_t>(m.files_total, m.files.size());
    std::stable_sort(
        m.block_devices.begin(), m.block_devices.end(),
        [](const BlockDevice& a, const BlockDevice& b) { return a.total_bytes() > b.total_bytes(); });
    std::sort(m.ranks.begin(), m.ranks.end(), [](const RankStats& a, const RankStats& b) {
        return a.rank != b.rank ? a.rank < b.rank : a.node < b.node;
    });
    std::sort(m.epochs.begin(), m.epochs.end(),
              [](const EpochStats& a, const EpochStats& b) { return a.index < b.index; });
    for (auto& e : m.epochs)
        std::sort(e.ranks.begin(), e.ranks.end(),
                  [](const EpochRankStats& a, const EpochRankStats& b) { return a.rank < b.rank; });
    m.rank_imbalance = rank_imbalance_of(m.ranks);
    return m;
}

Result<Report> merge_reports(std::vector<std::pair<std::string, Report>> parts, const MergeOptions& options) {
    JobMerger merger(options);
    for (auto& [path, r] : parts)
        if (auto a = merger.add(path, std::move(r)); !a) return a.error();
    return merger.finish();
}

}  // namespace iolens::model
