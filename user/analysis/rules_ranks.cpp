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
        // (a report of many nodes' recordings: pids repeat across nodes)
        if (p.node != rank.node || !pids.count(p.info.pid) || pids.count(p.info.ppid)) continue;
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

// A rank reads data files (a checkpoint-only rank has no input pipeline to
// wait for); every rank does when the data/software split is not known.
bool loads_data(const model::Report& r, const model::RankStats& k) {
    return !r.split.known || k.data_reads > 0;
}

// The share of a rank's wall time, start-up excluded, its training loop
// waited for I/O; nothing when the rank loads no data or ran too briefly.
std::optional<double> stall_share(const model::Report& r, const Thresholds& t, const model::RankStats& k,
                                  uint64_t* crit_out = nullptr, uint64_t* wall_out = nullptr) {
    if (!loads_data(r, k)) return std::nullopt;
    const uint64_t wall = k.wall_ns - std::min(k.wall_ns, k.startup_ns);
    const uint64_t crit = k.critical_io_ns - std::min(k.critical_io_ns, k.startup_critical_io_ns);
    if (crit_out) *crit_out = crit;
    if (wall_out) *wall_out = wall;
    if (wall < t.stall_min_wall_ns) return std::nullopt;
    return share_of(crit, wall);
}

std::optional<double> rounded(std::optional<double> v) {
    if (!v) return std::nullopt;
    return round4(*v);
}

// Bytes of the rank's reads that came from the device: read misses, page
// faults, O_DIRECT.
uint64_t device_bytes(const model::RankStats& k) {
    return k.page_cache.brought_in() + k.page_cache.direct_bytes;
}

// The straggler of rank_imbalance, judged against its peers (the mean of the
// other ranks): with 2 ranks, max over the mean of all can never pass 2.
struct Straggler {
    const model::RankStats* rank = nullptr;
    bool by_time = false;
    double ratio = 0;                      // of the metric that triggered
    double io_ratio = 0, bytes_ratio = 0;  // straggler over its peers' mean
    double io_peers = 0, bytes_peers = 0;  // the peers' means
    double io_mean = 0, bytes_mean = 0;    // every rank's mean
};

// The mean of metric over every rank but `but`.
template <typename F>
double peers_mean(const model::Report& r, const model::RankStats* but, F metric) {
    double sum = 0;
    for (const auto& k : r.ranks)
        if (&k != but) sum += static_cast<double>(metric(k));
    return sum / static_cast<double>(r.ranks.size() - 1);
}

std::optional<Straggler> find_straggler(const model::Report& r, const Thresholds& t) {
    if (r.ranks.size() < 2) return std::nullopt;
    const auto io = [](const model::RankStats& k) { return k.io_time_ns; };
    const auto bytes = [](const model::RankStats& k) { return k.ops[IOLENS_OP_READ].bytes; };
    const model::RankStats *io_max = &r.ranks.front(), *bytes_max = &r.ranks.front();
    double io_sum = 0, bytes_sum = 0;
    for (const auto& k : r.ranks) {
        io_sum += static_cast<double>(io(k));
        bytes_sum += static_cast<double>(bytes(k));
        if (io(k) > io(*io_max)) io_max = &k;
        if (bytes(k) > bytes(*bytes_max)) bytes_max = &k;
    }
    const double n = static_cast<double>(r.ranks.size());
    // Peers that did nothing at all: 1 ns / 1 byte, so the ratio stays finite.
    const double io_peers = peers_mean(r, io_max, io), bytes_peers = peers_mean(r, bytes_max, bytes);
    const double io_ratio = static_cast<double>(io(*io_max)) / std::max(io_peers, 1.0);
    const double bytes_ratio = static_cast<double>(bytes(*bytes_max)) / std::max(bytes_peers, 1.0);
    // Time imbalance counts when the straggler's I/O is a real part of its
    // run; byte imbalance when the ranks read a real amount.
    const bool io_hit =
        io(*io_max) > 0 && io_ratio >= t.imbalance_ratio &&
        share_of(io_max->io_time_ns, io_max->wall_ns) >= t.imbalance_min_io_share &&
        static_cast<double>(io(*io_max)) - io_peers >= static_cast<double>(t.imbalance_min_excess_ns);
    const bool bytes_hit =
        bytes_ratio >= t.imbalance_ratio && bytes_sum / n >= static_cast<double>(t.imbalance_min_bytes);
    if (!io_hit && !bytes_hit) return std::nullopt;
    Straggler s;
    // Name the straggler by the metric that triggered (time first).
    s.by_time = io_hit && (!bytes_hit || io_ratio >= bytes_ratio);
    s.rank = s.by_time ? io_max : bytes_max;
    s.ratio = s.by_time ? io_ratio : bytes_ratio;
    // Both ratios of the straggler named (its own figures, whichever metric).
    s.io_peers = peers_mean(r, s.rank, io);
    s.bytes_peers = peers_mean(r, s.rank, bytes);
    s.io_ratio = static_cast<double>(io(*s.rank)) / std::max(s.io_peers, 1.0);
    s.bytes_ratio = static_cast<double>(bytes(*s.rank)) / std::max(s.bytes_peers, 1.0);
    s.io_mean = io_sum / n;
    s.bytes_mean = bytes_sum / n;
    return s;
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
    const auto rank_loads_data = [&](int64_t rank) {
        for (const auto& k : r.ranks)
            if (k.rank == rank) return loads_data(r, k);
        return false;
    };
    for (const auto& k : r.ranks) {
        // Start-up (imports from a cold cache before the first data read) is
        // its own figure (startup_io), not a data-loading stall.
        uint64_t crit = 0, wall = 0;
        const auto s = stall_share(r, t, k, &crit, &wall);
        if (s && *s >= t.stall_warn_share) ranks.push_back({k.rank, {}, crit, wall, *s});
    }
    for (const auto& e : r.epochs)
        for (const auto& k : e.ranks) {
            if (k.wall_ns < t.stall_min_wall_ns || !rank_loads_data(k.rank)) continue;
            const double s = share_of(k.critical_io_ns, k.wall_ns);
            if (s >= t.stall_warn_share && k.critical_io_ns >= t.stall_min_ns)
                epochs.push_back({k.rank, e.index, k.critical_io_ns, k.wall_ns, s});
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
    // Only the straggler rank_imbalance names stalled: the stall is that
    // rank's, and its cause is what sets it apart from its peers.
    const auto straggler = find_straggler(r, t);
    const bool explained = straggler && stalled.size() == 1 && *stalled.begin() == straggler->rank->rank;
    if (explained) {
        title += " (the straggler: see rank_imbalance)";
        ev.text("explained_by", "rank_imbalance");
    }
    out.push_back(
        {{"io_stall", max_share >= t.stall_high_share ? model::Severity::High : model::Severity::Warn,
          std::move(title), std::move(ev),
          "The training loop waits for input. Raise DataLoader num_workers (up to the "
          "free CPU cores) and prefetch_factor (batches queued per worker, default 2); "
          "set persistent_workers=True so workers are not restarted each epoch (a "
          "stall at every epoch start) and pin_memory=True for faster host-to-GPU "
          "copies. If the reads themselves are slow (see the other findings), stage "
          "the data on node-local NVMe or tmpfs."},
         max_share / t.stall_warn_share,
         explained ? "rank_imbalance" : ""});
}

// rank_imbalance: one rank spends much more time in I/O (or reads many more
// bytes) than its peers; synchronous collectives make everyone wait for it.
// The cause is classified from the straggler's figures against its peers'.
void rank_imbalance(const model::Report& r, const Thresholds& t, Candidates& out) {
    const auto found = find_straggler(r, t);
    if (!found) return;
    const Straggler& st = *found;
    const model::RankStats& s = *st.rank;

    // The peers' page cache and stalls, pooled (a ratio of sums, not a mean
    // of ratios: every byte weighs the same).
    model::PageCacheStats peers_cache;
    double peers_device = 0, peers_io_ns = 0, peers_stall_sum = 0;
    size_t peers_stall_n = 0;
    for (const auto& k : r.ranks) {
        if (&k == &s) continue;
        peers_cache.merge(k.page_cache);
        peers_device += static_cast<double>(device_bytes(k));
        peers_io_ns += static_cast<double>(k.io_time_ns);
        if (const auto sh = stall_share(r, t, k)) {
            peers_stall_sum += *sh;
            ++peers_stall_n;
        }
    }
    const double n_peers = static_cast<double>(r.ranks.size() - 1);
    const auto s_hit = s.page_cache.hit_ratio(), p_hit = peers_cache.hit_ratio();
    const double s_device = static_cast<double>(device_bytes(s));
    // I/O time per MiB from the device, for ranks that read a real amount from it.
    const auto ns_per_device_mib = [&](double io_ns, double dev) -> std::optional<double> {
        if (dev < static_cast<double>(t.imbalance_device_min_bytes)) return std::nullopt;
        return io_ns / (dev / static_cast<double>(kMiB));
    };
    const auto s_speed = ns_per_device_mib(static_cast<double>(s.io_time_ns), s_device);
    const auto p_speed = ns_per_device_mib(peers_io_ns / n_peers, peers_device / n_peers);
    const auto s_stall = stall_share(r, t, s);
    // (value_or: GCC 12 warns of a maybe-uninitialized optional otherwise)
    const double p_stall_value = peers_stall_sum / static_cast<double>(std::max<size_t>(peers_stall_n, 1));
    std::optional<double> p_stall;
    if (peers_stall_n) p_stall.emplace(p_stall_value);

    const auto min_of = [&](auto metric) {
        uint64_t m = UINT64_MAX;
        for (const auto& k : r.ranks) m = std::min<uint64_t>(m, metric(k));
        return m;
    };

    // Causes, most specific first; several can hold.
    std::vector<std::string> causes;
    if (st.bytes_ratio >= t.imbalance_ratio && st.bytes_mean >= static_cast<double>(t.imbalance_min_bytes))
        causes.emplace_back("more_bytes");
    if (s_hit && p_hit && *p_hit - *s_hit >= t.imbalance_cache_gap) causes.emplace_back("colder_cache");
    if (s_speed && p_speed && *s_speed >= t.imbalance_ratio * *p_speed) causes.emplace_back("slower_device");
    if (causes.empty() && s_stall && p_stall && *s_stall - *p_stall >= t.stall_warn_share)
        causes.emplace_back("more_stall");
    if (causes.empty()) causes.emplace_back("unclassified");

    model::Evidence ev;
    ev.text("metric", st.by_time ? "io_time_ns" : "read_bytes")
        .id("straggler_rank", s.rank)
        .count("ranks", r.ranks.size())
        .text("cause", causes.front())
        .details("causes", causes)
        .ratio("io_time_over_peers", round4(st.io_ratio))
        .ratio("read_bytes_over_peers", round4(st.bytes_ratio))
        .ratio("io_time_max_over_mean",
               round4(st.io_mean > 0 ? static_cast<double>(s.io_time_ns) / st.io_mean : 0))
        .ratio(
            "read_bytes_max_over_mean",
            round4(st.bytes_mean > 0 ? static_cast<double>(s.ops[IOLENS_OP_READ].bytes) / st.bytes_mean : 0))
        .ns("straggler_io_time_ns", s.io_time_ns)
        .bytes("straggler_read_bytes", s.ops[IOLENS_OP_READ].bytes)
        .ns("straggler_wall_ns", s.wall_ns)
        .ns("peers_io_time_ns", static_cast<uint64_t>(st.io_peers))
        .bytes("peers_read_bytes", static_cast<uint64_t>(st.bytes_peers))
        .ns("mean_io_time_ns", static_cast<uint64_t>(st.io_mean))
        .ns("min_io_time_ns", min_of([](const model::RankStats& k) { return k.io_time_ns; }))
        .bytes("mean_read_bytes", static_cast<uint64_t>(st.bytes_mean))
        .bytes("min_read_bytes",
               min_of([](const model::RankStats& k) { return k.ops[IOLENS_OP_READ].bytes; }))
        .maybe("straggler_hit_ratio", model::Unit::Share, rounded(s_hit))
        .maybe("peers_hit_ratio", model::Unit::Share, rounded(p_hit))
        .bytes("straggler_device_bytes", static_cast<uint64_t>(s_device))
        .bytes("peers_device_bytes", static_cast<uint64_t>(peers_device / n_peers))
        .maybe("straggler_io_ns_per_device_mib", model::Unit::Nanoseconds,
               s_speed ? std::optional<uint64_t>(static_cast<uint64_t>(*s_speed)) : std::nullopt)
        .maybe("peers_io_ns_per_device_mib", model::Unit::Nanoseconds,
               p_speed ? std::optional<uint64_t>(static_cast<uint64_t>(*p_speed)) : std::nullopt)
        .maybe("straggler_stall_share", model::Unit::Share, rounded(s_stall))
        .maybe("peers_stall_share", model::Unit::Share, rounded(p_stall));
    if (!s.pids.empty()) ev.details("straggler_pids", s.pids);
    if (!s.node.empty()) ev.text("straggler_node", s.node);  // a report of many nodes' recordings

    const std::string why = [&] {
        const std::string& c = causes.front();
        if (c == "more_bytes") return fmt::format("it reads {:.1f}x their bytes", st.bytes_ratio);
        if (c == "colder_cache")
            return fmt::format("a colder page cache ({} of its reads cached, {} of theirs)", pct(*s_hit),
                               pct(*p_hit));
        if (c == "slower_device")
            return fmt::format("a slower storage path ({} per MiB from the device, {} for theirs)",
                               human_ns(static_cast<uint64_t>(*s_speed)),
                               human_ns(static_cast<uint64_t>(*p_speed)));
        if (c == "more_stall")
            return fmt::format(
                "its training loop waits longer for the same I/O ({} of its time, {} of theirs)",
                pct(s_stall.value_or(0)), pct(p_stall.value_or(0)));
        return std::string("same bytes, cache and storage speed: look at its node");
    }();
    const std::string who =
        s.node.empty() ? fmt::format("rank {}", s.rank) : fmt::format("rank {} (node {})", s.rank, s.node);
    const std::string title =
        st.by_time ? fmt::format("{} spends {:.1f}x its peers' time in I/O: {}", who, st.ratio, why)
                   : fmt::format("{} reads {:.1f}x its peers' bytes", who, st.ratio);
    const std::string& c = causes.front();
    std::string advice =
        c == "more_bytes"
            ? "Balance the data across ranks: use DistributedSampler (or split_by_node/split_by_worker "
              "with WebDataset) with equal-sized shards, and drop_last or pad so every rank reads the "
              "same amount."
        : c == "colder_cache"
            ? "The straggler reads from its device what its peers find in memory: stage or warm the data "
              "on every node the same way (copy to node-local NVMe or tmpfs, or read it once before "
              "training), and check the straggler node's free memory."
        : c == "slower_device"
            ? "The straggler's storage path is slower for the same bytes: check its node's mount (a "
              "remote or degraded file system, a full or throttled local disk) and stage the data on "
              "node-local NVMe or tmpfs."
        : c == "more_stall"
            ? "The straggler waits longer for the same I/O: give it as many DataLoader num_workers and "
              "CPU cores as its peers (check CPU binding and other jobs on its node)."
            : "Every synchronous step waits for the slowest rank. Check what differs on the straggler's "
              "node: its storage path, its page cache, its DataLoader workers and CPU cores.";
    // The straggler's own training loop waiting for I/O makes it as severe
    // as a stall of that size (io_stall then follows this finding).
    const bool high = st.ratio >= t.imbalance_high_ratio || (s_stall && *s_stall >= t.stall_high_share);
    out.push_back({{"rank_imbalance", high ? model::Severity::High : model::Severity::Warn, title,
                    std::move(ev), std::move(advice)},
                   st.ratio / t.imbalance_ratio});
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
