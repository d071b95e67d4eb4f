// Rules on the training job's ranks and epochs: did the training loop wait
// for data, is one rank slower than the others, does checkpointing block the
// main process. io_stall and rank_imbalance need Report::ranks (empty when the
// job's ranks could not be attributed) and stay silent without them.
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "analysis/rules.h"

namespace iolens::analysis::detail {

using nlohmann::json;

namespace {

constexpr size_t kMaxListed = 8;  // per-rank / per-epoch rows in evidence arrays

double share_of(uint64_t part, uint64_t whole) {
    return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// The rank's main process: the one whose parent is not in the rank (the
// process the launcher started; DataLoader workers are its children).
const model::ProcessStats* main_process(const model::Report& r, const model::RankStats& rank) {
    const std::set<uint32_t> pids(rank.pids.begin(), rank.pids.end());
    const model::ProcessStats* best = nullptr;
    for (const auto& p : r.processes) {
        if (!pids.count(p.info.pid) || pids.count(p.info.ppid)) continue;
        if (!best || p.info.start_ns < best->info.start_ns) best = &p;
    }
    return best;
}

// Wall time of a process within the capture.
uint64_t process_wall(const model::Report& r, const model::ProcessStats& p) {
    const auto& c = r.capture;
    const uint64_t start = p.info.start_ns ? p.info.start_ns : c.start_mono_ns;
    const uint64_t end = p.info.end_ns ? p.info.end_ns : c.start_mono_ns + c.duration_ns;
    return end > start ? end - start : 0;
}

}  // namespace

// io_stall: the share of a rank's wall time its training loop waited for
// I/O (critical_io_ns), over the whole capture and per epoch.
void io_stall(const model::Report& r, const Thresholds& t, Candidates& out) {
    struct Hit {
        int64_t rank;
        std::optional<uint32_t> epoch;
        uint64_t critical, wall;
        double share;
    };
    std::vector<Hit> ranks, epochs;
    // A rank that read no data file has no input pipeline to wait for (a
    // checkpoint-only job): its I/O is start-up or writes, judged elsewhere.
    const auto loads_data = [&](int64_t rank) {
        if (!r.split.known) return true;
        for (const auto& k : r.ranks)
            if (k.rank == rank) return k.data_reads > 0;
        return false;
    };
    for (const auto& k : r.ranks) {
        if (!loads_data(k.rank)) continue;
        // Start-up (imports from a cold cache before the first data read) is
        // its own figure (startup_io), not a data-loading stall.
        const uint64_t wall = k.wall_ns - std::min(k.wall_ns, k.startup_ns);
        const uint64_t crit = k.critical_io_ns - std::min(k.critical_io_ns, k.startup_critical_io_ns);
        if (wall < t.stall_min_wall_ns) continue;
        const double s = share_of(crit, wall);
        if (s >= t.stall_warn_share) ranks.push_back({k.rank, {}, crit, wall, s});
    }
    for (const auto& e : r.epochs)
        for (const auto& k : e.ranks) {
            if (k.wall_ns < t.stall_min_wall_ns || !loads_data(k.rank)) continue;
            const double s = share_of(k.critical_io_ns, k.wall_ns);
            if (s >= t.stall_warn_share) epochs.push_back({k.rank, e.index, k.critical_io_ns, k.wall_ns, s});
        }
    if (ranks.empty() && epochs.empty()) return;
    const auto by_share = [](const Hit& a, const Hit& b) {
        return a.share != b.share ? a.share > b.share : a.rank < b.rank;
    };
    std::sort(ranks.begin(), ranks.end(), by_share);
    std::sort(epochs.begin(), epochs.end(), by_share);

    // The headline: the worst rank over the capture; an epoch only when no
    // whole rank crossed the line (a cold first epoch, say).
    const Hit& worst = ranks.empty() ? epochs.front() : ranks.front();
    double max_share = worst.share;
    if (!epochs.empty()) max_share = std::max(max_share, epochs.front().share);

    const auto rows = [](const std::vector<Hit>& hits) {
        json a = json::array();
        for (size_t i = 0; i < hits.size() && i < kMaxListed; ++i) {
            json row = {{"rank", hits[i].rank},
                        {"critical_io_ns", hits[i].critical},
                        {"wall_ns", hits[i].wall},
                        {"stall_share", round4(hits[i].share)}};
            if (hits[i].epoch) row["epoch"] = *hits[i].epoch;
            a.push_back(std::move(row));
        }
        return a;
    };
    // Ranks stalled over the capture or in some epoch: the headline's rank
    // is always one of them.
    std::set<int64_t> stalled;
    for (const auto* hits : {&ranks, &epochs})
        for (const auto& h : *hits) stalled.insert(h.rank);
    model::Evidence ev;
    ev.id("rank", worst.rank)
        .ns("critical_io_ns", worst.critical)
        .ns("wall_ns", worst.wall)
        .share("stall_share", round4(worst.share))
        .count("ranks_stalled", stalled.size())
        .count("ranks_total", r.ranks.size())
        .count("epochs_stalled", epochs.size())
        .details("ranks", rows(ranks))
        .details("epochs", rows(epochs));
    if (worst.epoch) ev.id("epoch", *worst.epoch);
    std::string title =
        worst.epoch
            ? fmt::format("rank {} waited for I/O {} of epoch {}", worst.rank, pct(worst.share), *worst.epoch)
            : fmt::format("rank {} waited for I/O {} of its wall time", worst.rank, pct(worst.share));
    if (stalled.size() > 1) title += fmt::format(" ({} ranks stalled)", stalled.size());
    out.push_back(
        {{"io_stall", max_share >= t.stall_high_share ? model::Severity::High : model::Severity::Warn,
          std::move(title), std::move(ev),
          "The training loop waits for input. Raise DataLoader num_workers (up to the "
          "free CPU cores) and prefetch_factor (batches queued per worker, default 2); "
          "set persistent_workers=True so workers are not restarted each epoch (a "
          "stall at every epoch start) and pin_memory=True for faster host-to-GPU "
          "copies. If the reads themselves are slow (see the other findings), stage "
          "the data on node-local NVMe or tmpfs."},
         max_share / t.stall_warn_share});
}

// rank_imbalance: one rank spends much more time in I/O (or reads many more
// bytes) than the mean rank; synchronous collectives make everyone wait for it.
void rank_imbalance(const model::Report& r, const Thresholds& t, Candidates& out) {
    if (r.ranks.size() < 2) return;
    const double n = static_cast<double>(r.ranks.size());
    double io_sum = 0, bytes_sum = 0;
    const model::RankStats *io_max = &r.ranks.front(), *bytes_max = &r.ranks.front();
    uint64_t io_min = UINT64_MAX, bytes_min = UINT64_MAX;
    for (const auto& k : r.ranks) {
        const uint64_t b = k.ops[IOLENS_OP_READ].bytes;
        io_sum += static_cast<double>(k.io_time_ns);
        bytes_sum += static_cast<double>(b);
        if (k.io_time_ns > io_max->io_time_ns) io_max = &k;
        if (b > bytes_max->ops[IOLENS_OP_READ].bytes) bytes_max = &k;
        io_min = std::min(io_min, k.io_time_ns);
        bytes_min = std::min(bytes_min, b);
    }
    const double io_mean = io_sum / n, bytes_mean = bytes_sum / n;
    const double io_ratio = io_mean > 0 ? static_cast<double>(io_max->io_time_ns) / io_mean : 0;
    const double bytes_ratio =
        bytes_mean > 0 ? static_cast<double>(bytes_max->ops[IOLENS_OP_READ].bytes) / bytes_mean : 0;
    // Time imbalance counts when the straggler's I/O is a real part of its
    // run; byte imbalance when the ranks read a real amount.
    const bool io_hit = io_ratio >= t.imbalance_ratio &&
                        share_of(io_max->io_time_ns, io_max->wall_ns) >= t.imbalance_min_io_share;
    const bool bytes_hit =
        bytes_ratio >= t.imbalance_ratio && bytes_mean >= static_cast<double>(t.imbalance_min_bytes);
    if (!io_hit && !bytes_hit) return;
    // Name the straggler by the metric that triggered (time first).
    const bool by_time = io_hit && (!bytes_hit || io_ratio >= bytes_ratio);
    const model::RankStats& s = by_time ? *io_max : *bytes_max;
    const double ratio = by_time ? io_ratio : bytes_ratio;

    model::Evidence ev;
    ev.text("metric", by_time ? "io_time_ns" : "read_bytes")
        .id("straggler_rank", s.rank)
        .count("ranks", r.ranks.size())
        .ratio("io_time_max_over_mean", round4(io_ratio))
        .ratio("read_bytes_max_over_mean", round4(bytes_ratio))
        .ns("straggler_io_time_ns", s.io_time_ns)
        .bytes("straggler_read_bytes", s.ops[IOLENS_OP_READ].bytes)
        .ns("straggler_wall_ns", s.wall_ns)
        .ns("mean_io_time_ns", static_cast<uint64_t>(io_mean))
        .ns("min_io_time_ns", io_min)
        .bytes("mean_read_bytes", static_cast<uint64_t>(bytes_mean))
        .bytes("min_read_bytes", bytes_min);
    if (!s.pids.empty()) ev.details("straggler_pids", s.pids);
    const std::string title =
        by_time ? fmt::format("rank {} spends {:.1f}x the mean rank's time in I/O", s.rank, ratio)
                : fmt::format("rank {} reads {:.1f}x the mean rank's bytes", s.rank, ratio);
    out.push_back(
        {{"rank_imbalance", ratio >= t.imbalance_high_ratio ? model::Severity::High : model::Severity::Warn,
          title, std::move(ev),
          by_time ? "Every synchronous step waits for the slowest rank. Check what "
                    "differs on the straggler: its node's storage path (a slow or "
                    "remote mount, a full local disk), a colder page cache (stage the "
                    "data on node-local NVMe or tmpfs on every node), fewer DataLoader "
                    "num_workers or CPU cores, or a shard with larger samples."
                  : "Balance the data across ranks: use DistributedSampler (or "
                    "split_by_node/split_by_worker with WebDataset) with equal-sized "
                    "shards, and drop_last or pad so every rank reads the same amount."},
         ratio / t.imbalance_ratio});
}

// checkpoint_stall: the main process of a rank (or, without ranks, a target
// process) spends a large share of its wall time in writes and fsyncs: a
// synchronous checkpoint blocking training.
void checkpoint_stall(const model::Report& r, const Thresholds& t, Candidates& out) {
    struct Main {
        std::optional<int64_t> rank;
        const model::ProcessStats* proc;
        uint64_t wall;
    };
    std::vector<Main> mains;
    if (!r.ranks.empty()) {
        for (const auto& k : r.ranks)
            if (const auto* p = main_process(r, k)) mains.push_back({k.rank, p, k.wall_ns});
    } else {
        const std::set<uint32_t> targets(r.capture.pids.begin(), r.capture.pids.end());
        for (const auto& p : r.processes)
            if (targets.count(p.info.pid)) mains.push_back({{}, &p, process_wall(r, p)});
    }
    const bool blocking = recording::probe_live(r.capture, recording::kProbeBlocking);
    struct Hit {
        Main m;
        uint64_t ns;
        double share;
    };
    std::vector<Hit> hits;
    for (const auto& m : mains) {
        const auto& sync = m.proc->ops[IOLENS_OP_SYNC];
        const auto& wr = m.proc->ops[IOLENS_OP_WRITE];
        // Opening (O_TRUNC) and closing the files it writes is part of the
        // write: the close flushes (ProcessStats::flush).
        const uint64_t ns = sync.time_ns + wr.time_ns + m.proc->flush.time_ns;
        if (sync.calls < t.checkpoint_min_sync_calls || ns < t.checkpoint_min_ns || m.wall == 0) continue;
        const double s = share_of(ns, m.wall);
        if (s >= t.checkpoint_share) hits.push_back({m, ns, s});
    }
    if (hits.empty()) return;
    std::sort(hits.begin(), hits.end(), [](const Hit& a, const Hit& b) { return a.share > b.share; });
    const Hit& w = hits.front();
    const auto& sync = w.m.proc->ops[IOLENS_OP_SYNC];
    const auto& wr = w.m.proc->ops[IOLENS_OP_WRITE];
    model::Evidence ev;
    ev.id("pid", w.m.proc->info.pid)
        .count("sync_calls", sync.calls)
        .ns("sync_time_ns", sync.time_ns)
        .count("write_calls", wr.calls)
        .bytes("write_bytes", wr.bytes)
        .ns("write_time_ns", wr.time_ns)
        .count("flush_calls", w.m.proc->flush.calls)
        .ns("flush_time_ns", w.m.proc->flush.time_ns)
        .ns("wall_ns", w.m.wall)
        .share("checkpoint_share", round4(w.share))
        .count("processes_affected", hits.size())
        // Off CPU in uninterruptible sleep inside those calls: null when the
        // blocking probe was not live.
        .maybe("blocked_ns", model::Unit::Nanoseconds,
               blocking
                   ? std::optional<uint64_t>(sync.blocked_ns + wr.blocked_ns + w.m.proc->flush.blocked_ns)
                   : std::nullopt);
    if (w.m.rank) ev.id("rank", *w.m.rank);
    const std::string who = w.m.rank ? fmt::format("rank {} (pid {})", *w.m.rank, w.m.proc->info.pid)
                                     : fmt::format("pid {}", w.m.proc->info.pid);
    out.push_back({{"checkpoint_stall",
                    w.share >= t.checkpoint_high_share ? model::Severity::High : model::Severity::Warn,
                    fmt::format("{} spent {} of its wall time writing and syncing ({} fsyncs)", who,
                                pct(w.share), sync.calls),
                    std::move(ev),
                    "Checkpoint writes and fsyncs run on the training process. Use asynchronous "
                    "checkpointing (torch.distributed.checkpoint.async_save, PyTorch Lightning "
                    "AsyncCheckpointIO, Orbax async) so the copy to storage overlaps training; "
                    "write to node-local NVMe or tmpfs first and copy out in the background; "
                    "with many ranks writing one file use collective I/O (MPI-IO, sharded "
                    "checkpoints); checkpoint less often."},
                   w.share / t.checkpoint_share});
}

}  // namespace iolens::analysis::detail

namespace iolens::analysis::detail {

// startup_io (info): the time a rank's main thread waited for I/O before its
// first read or write of a data file (imports, shared libraries, configs from
// a cold cache). Paid once per start, so it is a figure, not a stall.
void startup_io(const model::Report& r, const Thresholds& t, Candidates& out) {
    if (!r.split.known) return;
    const model::RankStats* worst = nullptr;
    for (const auto& k : r.ranks)
        if (!worst || k.startup_critical_io_ns > worst->startup_critical_io_ns) worst = &k;
    if (!worst || worst->startup_critical_io_ns < t.startup_min_ns) return;
    const auto& sp = r.split;
    model::Evidence ev;
    ev.id("rank", worst->rank)
        .ns("startup_critical_io_ns", worst->startup_critical_io_ns)
        .ns("startup_ns", worst->startup_ns)
        .ns("startup_io_time_ns", sp.startup_time_ns())
        .count("startup_calls",
               [&] {
                   uint64_t n = 0;
                   for (const auto& o : sp.startup) n += o.calls;
                   return n;
               }())
        .bytes("startup_read_bytes", sp.startup[IOLENS_OP_READ].bytes)
        .count("software_files", sp.software_files);
    out.push_back(
        {{"startup_io", model::Severity::Info,
          fmt::format("start-up waited {} for I/O before the first data read (rank {}, {} of start-up)",
                      human_ns(worst->startup_critical_io_ns), worst->rank, human_ns(worst->startup_ns)),
          std::move(ev),
          "This is start-up, not data loading: importing modules and loading shared libraries "
          "(import torch) from a cold cache. It is paid once per process start. If it matters, "
          "keep the Python environment on local disk rather than a shared file system, start "
          "workers once (persistent_workers=True), or warm the cache before the job."},
         static_cast<double>(worst->startup_critical_io_ns) / static_cast<double>(t.startup_min_ns)});
}

}  // namespace iolens::analysis::detail
