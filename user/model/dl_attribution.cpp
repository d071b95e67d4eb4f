#include "model/dl_attribution.h"

#include <algorithm>
#include <functional>
#include <future>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "model/epochs.h"
#include "model/file_class.h"
#include "model/report_builder.h"
#include "model/stalls.h"
#include "model/start_order.h"
#include "util/flat_map.h"

namespace iolens::model {

namespace {

void add_block(ProcessBlock& to, const ProcessBlock& from) {
    to.read_bytes += from.read_bytes;
    to.write_bytes += from.write_bytes;
    to.requests += from.requests;
}

struct Window {
    uint64_t start = 0, end = 0;  // [start, end)
};

// The capture as a window on the event clock; falls back on the events seen
// when the capture's clock or duration is not known (a partial recording).
Window capture_window(const CaptureInfo& c, const DlLog& log) {
    Window w;
    const bool any = log.first_ts <= log.last_ts;
    w.start = c.start_mono_ns ? c.start_mono_ns : (any ? log.first_ts : 0);
    w.end = c.duration_ns ? c.start_mono_ns + c.duration_ns : std::max(w.start, any ? log.last_ts : 0);
    if (c.start_mono_ns && !c.duration_ns && any) w.end = std::max(w.end, log.last_ts);
    return w;
}

// A process's life clipped to the capture.
Window life(const ProcessInfo& p, const Window& cap) {
    Window w;
    w.start = std::max(p.start_ns ? p.start_ns : cap.start, cap.start);
    w.end = std::min(p.end_ns ? p.end_ns : cap.end, cap.end);
    if (w.end < w.start) w.end = w.start;
    return w;
}

uint64_t overlap(const Window& a, uint64_t lo, uint64_t hi) {
    const uint64_t s = std::max(a.start, lo), e = std::min(a.end, hi);
    return e > s ? e - s : 0;
}

// Forks of a root's children after all its earlier children exited (the
// DataLoader's per-epoch respawn), sorted. O(n log n) in the children.
std::vector<uint64_t> respawns(const std::unordered_map<uint32_t, std::vector<const ProcessInfo*>>& children,
                               const std::vector<uint32_t>& roots) {
    std::vector<uint64_t> out;
    for (uint32_t root : roots) {
        auto it = children.find(root);
        if (it == children.end()) continue;
        std::vector<const ProcessInfo*> kids = it->second;
        std::sort(kids.begin(), kids.end(),
                  [](const ProcessInfo* a, const ProcessInfo* b) { return a->start_ns < b->start_ns; });
        // Every earlier child gone by this one's start: none still running,
        // and the last of their exits before it.
        bool one_running = false;
        uint64_t last_end = 0;
        for (const ProcessInfo* k : kids) {
            if (!one_running && last_end <= k->start_ns) out.push_back(k->start_ns);
            if (k->end_ns == 0) one_running = true;
            last_end = std::max(last_end, k->end_ns);
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

Spread spread(const std::vector<uint64_t>& v) {
    Spread s;
    if (v.empty()) return s;
    s.min = *std::min_element(v.begin(), v.end());
    s.max = *std::max_element(v.begin(), v.end());
    double sum = 0;
    for (uint64_t x : v) sum += static_cast<double>(x);
    s.mean = sum / static_cast<double>(v.size());
    if (s.mean > 0) s.max_over_mean = static_cast<double>(s.max) / s.mean;
    return s;
}

// The threads the attribution uses: BuilderOptions::threads, as
// builder_threads makes it. A walk of the ranks' calls splits them in
// groups, each group every groups-th rank on a thread of its own that
// decodes the whole log itself (a decoding costs less than the work per
// call it shares out; past 4 threads they would mostly decode).
size_t walk_groups(size_t ranks, size_t threads) { return std::max<size_t>(1, std::min(ranks, threads)); }

// Hands every ranked call to sink(e, uint32_t rank), each rank's in start
// order (ties: record order). Through a bounded reorder buffer first:
// records come nearly in start order, so this holds a few thousand calls, not
// all of them. Should one arrive too late for the buffer, reset(rank) clears
// what sink built for that rank (sink starts on a clean state: the caller
// makes it) and its calls are handed again, sorted
// (exact, and as much memory as the calls take). every(e, long rank) sees
// each call once, in record order, ranked or not (rank -1), on the first
// decoding: work that needs no order rides on the same decoding of the log.
// each(e, uint32_t rank) sees each ranked call once, in record order, on the
// first decoding, on its rank's thread (below): order-free work of one rank,
// shared out with the ranks. done(rank), on the same thread, comes once the
// rank's calls have all been handed to sink.
// The ranks are walked in groups (walk_groups), each on its own thread:
// sink(e, rank), each(e, rank), done(rank) and reset(rank) must touch only
// that rank's state; every() runs on the calling thread only. Templates, not
// std::function: these run for every call, twice.
struct NoEvery {
    void operator()(const CallEvent&, long) const {}
};
struct NoEach {
    void operator()(const CallEvent&, uint32_t) const {}
};
struct NoDone {
    void operator()(size_t) const {}
};
template <class Reset, class Sink, class Every, class Each = NoEach, class Done = NoDone>
void walk_ranks_in_start_order(const CallLog& calls, size_t reorder_calls, size_t threads, const RankMap& rm,
                               Reset&& reset, Sink&& sink, Every&& every, Each&& each = NoEach{},
                               Done&& done = NoDone{}) {
    const size_t nr = rm.ranks.size();
    const size_t groups = walk_groups(nr, threads);
    // The ranks' pids in a flat table (a few cache lines; DataLoader workers
    // take turns, so the pid changes every few calls): rank + 1, 0 for none.
    util::FlatMap<uint32_t, uint32_t> rank_of;
    for (const auto& [pid, i] : rm.rank_of) rank_of[pid] = static_cast<uint32_t>(i) + 1;
    // The rank of each call's pid; calls come in runs of one pid.
    const auto ranked = [&](auto&& to, auto&& all) {
        uint32_t last_pid = 0;
        long last_rank = -1;
        bool have = false;
        CallLog::Cursor cur(calls);
        for (CallEvent e; cur.next(e);) {
            if (!have || e.pid != last_pid) {
                have = true;
                const uint32_t* r = rank_of.find(e.pid);
                last_rank = r ? static_cast<long>(*r) - 1 : -1;
                last_pid = e.pid;
            }
            all(e, last_rank);
            if (last_rank >= 0) to(e, static_cast<uint32_t>(last_rank));
        }
    };
    const auto walk = [&](size_t g, bool with_every) {
        const auto mine = [&](uint32_t rank) { return rank % groups == g; };
        StartOrder order(reorder_calls, [&](const OrderedCall& e, uint32_t rank) { sink(e, rank); });
        const auto push = [&](const CallEvent& e, uint32_t rank) {
            if (!mine(rank)) return;
            each(e, rank);
            order.push(e, rank);
        };
        if (with_every)
            ranked(push, every);
        else
            ranked(push, [](const CallEvent&, long) {});
        order.finish();
        if (!order.in_order()) {
            std::vector<std::vector<OrderedCall>> per_rank(nr);
            for (size_t i = g; i < nr; i += groups) reset(i);
            ranked(
                [&](const CallEvent& e, uint32_t rank) {
                    if (mine(rank)) per_rank[rank].push_back(e);
                },
                [](const CallEvent&, long) {});
            for (size_t i = g; i < nr; i += groups) {
                std::stable_sort(
                    per_rank[i].begin(), per_rank[i].end(),
                    [](const OrderedCall& a, const OrderedCall& b) { return a.start_ns < b.start_ns; });
                for (const OrderedCall& e : per_rank[i]) sink(e, static_cast<uint32_t>(i));
                per_rank[i] = std::vector<OrderedCall>();  // freed (`= {}` would keep the capacity)
            }
        }
        for (size_t i = g; i < nr; i += groups) done(i);
    };
    // The other groups on threads of their own; the futures join even if
    // the first group throws.
    std::vector<std::future<void>> others;
    for (size_t g = 1; g < groups; ++g) others.push_back(std::async(std::launch::async, walk, g, false));
    walk(0, true);
    for (auto& f : others) f.get();
}

// One attribution pass: each step fills a part of the report, in order, from
// what the steps before it found.
class DlAttribution {
public:
    DlAttribution(Report& r, const DlInputs& in)
        : r_(r),
          in_(in),
          log_(in.log),
          cap_(capture_window(r.capture, in.log)),
          threads_(builder_threads(in.threads)) {}

    void run() {
        if (!assign()) return;
        rank_totals();
        // The epochs and the split read the log each on their own walk and
        // neither reads what the other writes (the epochs: windows_,
        // rank_starts_, epochs, limits, epochs_note; the split:
        // rank_startup_end_, split, the ranks' data_reads and startup_ns,
        // the processes' flush): on two threads, two cores take them side
        // by side. The future joins even if the epochs throw.
        auto split =
            std::async(threads_ > 1 ? std::launch::async : std::launch::deferred, [this] { split_calls(); });
        find_epochs();
        rank_epochs();
        make_epochs();
        split.get();
        stalls_and_epoch_calls();
        epoch_page_cache_and_block();
        imbalance();
    }

private:
    bool assign();
    void rank_totals();
    void find_epochs();
    std::vector<EpochWindow> infer_epochs();
    void rank_epochs();
    void rank_marker_epochs();
    void make_epochs();
    void split_calls();
    std::unordered_set<uint64_t> flush_calls_and_first_open(const std::unordered_set<uint64_t>& written,
                                                            uint64_t& first);
    void charge_split(const std::vector<uint8_t>& soft, const std::unordered_set<uint64_t>& flushes,
                      uint64_t first);
    // Calls split_calls holds back for the end of its pass (64 bytes each).
    static constexpr size_t kMaxPendingCalls = size_t{1} << 16;
    void stalls_and_epoch_calls();
    void epoch_page_cache_and_block();
    void imbalance();
    long rank_index(uint32_t pid) const {
        auto it = rm_.rank_of.find(pid);
        return it == rm_.rank_of.end() ? -1L : static_cast<long>(it->second);
    }
    // The epoch of rank i (-1: no rank) holding time t, or -1.
    long epoch_at(long i, uint64_t t) const {
        return epoch_of(i >= 0 && !rank_windows_.empty() ? rank_windows_[i] : windows_, t);
    }
    const std::vector<EpochWindow>& windows_of(size_t i) const {
        return rank_windows_.empty() ? windows_ : rank_windows_[i];
    }

    Report& r_;
    const DlInputs& in_;
    const DlLog& log_;
    const Window cap_;
    const size_t threads_;  // the walks' (builder_threads)
    RankMap rm_;
    size_t nr_ = 0;
    std::vector<Window> rank_life_;                       // by rank index
    std::vector<EpochWindow> windows_;                    // the epochs, by start
    std::vector<std::vector<uint64_t>> rank_starts_;      // inferred: each rank's own epoch starts
    std::vector<std::vector<EpochWindow>> rank_windows_;  // each rank's epochs (empty: windows_)
    std::vector<uint64_t> rank_startup_end_;              // each rank's first data read or write
    EpochSource source_ = EpochSource::Marker;
    uint64_t marker_tail_ = 0;  // where a rank's last marker epoch ends without an "end"
    bool per_rank_ = true;      // per-(epoch, rank) tables kept (kMaxEpochRankCells)
};

bool DlAttribution::assign() {
    std::vector<ProcessInfo> infos;
    std::unordered_map<uint32_t, uint64_t> calls_of;
    for (const auto& p : r_.processes) {
        infos.push_back(p.info);
        for (const auto& op : p.ops) calls_of[p.info.pid] += op.calls;
    }
    rm_ = assign_ranks(infos, in_.env, in_.rank_env_override, calls_of);
    nr_ = rm_.ranks.size();
    return nr_ != 0;
}

// Ranks: sums over their processes, and wall time.
void DlAttribution::rank_totals() {
    rank_life_.assign(nr_, Window{UINT64_MAX, 0});
    r_.ranks.resize(nr_);
    for (size_t i = 0; i < nr_; ++i) {
        const RankGroup& g = rm_.ranks[i];
        RankStats& rs = r_.ranks[i];
        rs.rank = g.rank;
        rs.local_rank = g.local_rank;
        rs.world_size = g.world_size;
        rs.rank_source = g.source;
        rs.pids = g.pids;
        rs.root_pids = g.roots;
    }
    for (const auto& p : r_.processes) {
        auto it = rm_.rank_of.find(p.info.pid);
        if (it == rm_.rank_of.end()) continue;
        RankStats& rs = r_.ranks[it->second];
        for (int op = 0; op < kOpCount; ++op) rs.ops[op].merge(p.ops[op]);
        rs.page_cache.merge(p.page_cache);
        add_block(rs.block, p.block);
        const Window l = life(p.info, cap_);
        Window& rl = rank_life_[it->second];
        rl.start = std::min(rl.start, l.start);
        rl.end = std::max(rl.end, l.end);
    }
    for (size_t i = 0; i < nr_; ++i) {
        if (rank_life_[i].start == UINT64_MAX) rank_life_[i] = cap_;  // known only from ENV
        r_.ranks[i].wall_ns = rank_life_[i].end - rank_life_[i].start;
    }
}

// Epoch windows from markers, if any: then the inference is not needed.
void DlAttribution::find_epochs() {
    windows_ = epochs_from_markers(log_.markers, cap_.end);
    if (windows_.empty()) {
        source_ = EpochSource::Inferred;
        windows_ = infer_epochs();
        // The "end" marker (without epoch markers) still ends the last epoch.
        if (!windows_.empty())
            for (const auto& m : log_.markers)
                if (m.text == "end" && m.ts_ns > windows_.back().start_ns)
                    windows_.back().end_ns = std::min(windows_.back().end_ns, m.ts_ns);
    }
    // Bounded whatever the recording says: the first kMaxEpochs epochs (the
    // last of them still ends where the next began: later events are in none).
    const bool truncated = windows_.size() > kMaxEpochs;
    if (truncated) {
        r_.limits.push_back("the recording has " + std::to_string(windows_.size()) + " epochs: the first " +
                            std::to_string(kMaxEpochs) +
                            " are reported, and what came after them is in no epoch");
        windows_.resize(kMaxEpochs);
    }
    marker_tail_ = truncated ? windows_.back().end_ns : cap_.end;
    if (windows_.size() * nr_ > kMaxEpochRankCells) {
        per_rank_ = false;
        r_.limits.push_back(std::to_string(windows_.size()) + " epochs x " + std::to_string(nr_) +
                            " ranks: per-rank tables of each epoch are left out (more than " +
                            std::to_string(kMaxEpochRankCells) +
                            "); the epochs' and the ranks' own totals are exact");
    }
}

// The dataset re-read cycle of each rank, walking its calls by start time,
// merged over ranks.
std::vector<EpochWindow> DlAttribution::infer_epochs() {
    std::vector<bool> data_file(log_.files());
    for (size_t f = 0; f < data_file.size(); ++f)
        data_file[f] = !(f < in_.software_file.size() && in_.software_file[f]);  // data_file_path
    std::vector<DataReadLog> logs;
    for (size_t i = 0; i < nr_; ++i) logs.emplace_back(data_file);
    // Children by parent, once (each rank's roots look theirs up).
    std::unordered_map<uint32_t, std::vector<const ProcessInfo*>> children;
    for (const auto& p : r_.processes)
        if (p.info.pid != p.info.ppid && p.info.start_ns) children[p.info.ppid].push_back(&p.info);
    std::vector<std::vector<uint64_t>>& starts = rank_starts_;
    starts.assign(nr_, {});
    std::vector<uint8_t> too_few(nr_);
    // Each rank's starts as soon as its walk is over, on its own thread
    // (a rank's kept reads are freed before the next rank of its group).
    walk_ranks_in_start_order(
        log_.calls, in_.reorder_calls, threads_, rm_, [&](size_t i) { logs[i] = DataReadLog(data_file); },
        [&](const OrderedCall& e, uint32_t rank) { logs[rank].add(e); }, NoEvery{}, NoEach{},
        [&](size_t i) {
            bool few = false;
            starts[i] =
                infer_epoch_starts(std::move(logs[i]).finish(), respawns(children, rm_.ranks[i].roots), &few);
            too_few[i] = few;
        });
    const bool too_few_files = std::find(too_few.begin(), too_few.end(), 1) != too_few.end();
    uint64_t data_end = 0;  // the last data read's end, over the ranks with epochs
    for (size_t i = 0; i < nr_; ++i)
        if (!starts[i].empty()) data_end = std::max(data_end, logs[i].data_end_ns());
    logs.clear();
    const bool none = std::all_of(starts.begin(), starts.end(), [](const auto& s) { return s.empty(); });
    if (none && too_few_files)
        r_.epochs_note = "no epochs inferred: the data was re-read in passes over fewer than " +
                         std::to_string(kMinEpochFiles) +
                         " files, which cannot be told apart from several processes reading a shared file "
                         "(DataLoader workers opening one HDF5/LMDB file); mark the epochs (docs/markers.md)";
    // The last epoch ends with the last data read (what follows, a final
    // checkpoint or teardown, is in no epoch), or at an "end" marker.
    return merge_rank_epochs(starts, data_end ? std::min(data_end, cap_.end) : cap_.end);
}

// Inferred epochs with several ranks: each rank's calls, page-cache events
// and block requests go to the epochs of its own boundaries (epoch k of a
// rank is its own k-th pass), not the merged ones: a rank that starts epoch
// 2 later than another keeps the end of its epoch 1 in epoch 1. A rank that
// found fewer boundaries takes the merged starts for the rest.
void DlAttribution::rank_epochs() {
    rank_windows_.clear();
    if (nr_ < 2 || windows_.empty()) return;
    if (source_ == EpochSource::Marker) return rank_marker_epochs();
    if (rank_starts_.size() != nr_) return;
    const size_t n = windows_.size();
    rank_windows_.assign(nr_, windows_);
    for (size_t i = 0; i < nr_; ++i) {
        auto& w = rank_windows_[i];
        const auto& own = rank_starts_[i];
        for (size_t k = 0; k < n; ++k) {
            w[k].start_ns = k < own.size() ? own[k] : windows_[k].start_ns;
            if (k && w[k].start_ns < w[k - 1].start_ns) w[k].start_ns = w[k - 1].start_ns;
        }
        for (size_t k = 0; k < n; ++k)
            w[k].end_ns = k + 1 < n ? w[k + 1].start_ns : std::max(windows_.back().end_ns, w[k].start_ns);
    }
}

// Marker epochs with several ranks: the same, from each rank's own markers
// (rank_marker_windows); markers of processes without a rank only set the
// merged windows.
void DlAttribution::rank_marker_epochs() {
    std::vector<std::vector<MarkerEvent>> own(nr_);
    for (const auto& m : log_.markers)
        if (const long i = rank_index(m.pid); i >= 0) own[i].push_back(m);
    rank_windows_.reserve(nr_);
    for (size_t i = 0; i < nr_; ++i)
        rank_windows_.push_back(rank_marker_windows(windows_, own[i], log_.markers, marker_tail_));
}

void DlAttribution::make_epochs() {
    r_.epochs.resize(windows_.size());
    for (size_t k = 0; k < windows_.size(); ++k) {
        EpochStats& ep = r_.epochs[k];
        ep.index = static_cast<uint32_t>(k + 1);
        ep.source = source_;
        ep.start_ns = windows_[k].start_ns;
        ep.end_ns = windows_[k].end_ns;
        ep.marker_number = windows_[k].marker_number;
        ep.steps = windows_[k].steps;
        if (per_rank_) ep.ranks.resize(nr_);
        for (size_t i = 0; i < nr_; ++i) {
            const EpochWindow& w = windows_of(i)[k];
            const uint64_t wall = overlap(rank_life_[i], w.start_ns, w.end_ns);
            ep.rank_sums.wall_ns += wall;
            if (!per_rank_) continue;
            ep.ranks[i].rank = rm_.ranks[i].rank;
            ep.ranks[i].wall_ns = wall;
            ep.ranks[i].start_ns = w.start_ns;
            ep.ranks[i].end_ns = w.end_ns;
        }
    }
}

// Start-up, software and data (CallSplit): which files are software, which
// (process, file) pairs were written, and where each rank's start-up ends,
// then every call charged to its part.
//
// Without writes, the charge is made on the same pass over the log
// (FusedSplit): a call that starts at or after the first data move seen so
// far is after start-up whatever the rest of the log holds (the first can
// only move earlier), so it is charged at once; the others (start-up calls,
// mostly) wait for the end of the pass, up to kMaxPendingCalls, past which
// the charge is made on a second pass as with writes. One decode of the log
// instead of two (~0.1 s of CPU for 10M calls). Sums and histograms come out
// the same in any order.
void DlAttribution::split_calls() {
    const size_t nf = log_.files();
    std::vector<uint8_t> soft(nf);
    for (size_t f = 0; f < nf; ++f) soft[f] = f < in_.software_file.size() && in_.software_file[f];
    std::unordered_set<uint64_t> written;  // pid << 32 | file
    std::vector<uint8_t> seen(nf);
    rank_startup_end_.assign(nr_, UINT64_MAX);
    uint64_t first = UINT64_MAX;
    // The rank of the last call's pid: calls come in runs of one pid.
    uint32_t last_pid = 0;
    long last_rank = rank_index(0);
    // The charge made on this pass (given up past kMaxPendingCalls waiting).
    OpTable startup{}, data{};
    std::vector<CallEvent> pending;
    bool fused = true;
    const auto split_one = [&](const CallEvent& e) {
        const uint32_t f = e.file();
        if (f >= nf) return;
        seen[f] = 1;
        if (soft[f]) return;
        const int op = e.op();
        const bool moved =
            (op == IOLENS_OP_READ || op == IOLENS_OP_WRITE) && e.has(CallEvent::kHasSize) && e.bytes > 0;
        if (op == IOLENS_OP_WRITE && !e.has(CallEvent::kError)) written.insert(uint64_t{e.pid} << 32 | f);
        if (e.pid != last_pid) {
            last_pid = e.pid;
            last_rank = rank_index(e.pid);
        }
        const long i = last_rank;
        if (i >= 0 && moved && op == IOLENS_OP_READ) r_.ranks[i].data_reads++;
        // A pipe or a socket (stdout, a log) is no data file: regular files only.
        if (!moved || !e.has(CallEvent::kRegular)) return;
        first = std::min(first, e.start_ns);
        if (i >= 0) rank_startup_end_[i] = std::min(rank_startup_end_[i], e.start_ns);
    };
    // charge_split's rule for a call known to start at or after the first
    // data move: data, unless a software file's.
    const auto after_startup = [&](const CallEvent& e) {
        const uint32_t f = e.file();
        if (f >= nf || !soft[f]) account(data[e.op()], e);
    };
    CallLog::Cursor cur(log_.calls);
    for (CallEvent e; cur.next(e);) {
        if (fused) {
            if (e.start_ns >= first) {
                after_startup(e);
            } else if (pending.size() < kMaxPendingCalls) {
                pending.push_back(e);
            } else {
                fused = false;
                pending = std::vector<CallEvent>();  // freed
            }
        }
        split_one(e);
        if (fused && !written.empty()) {  // a write: the charge is a second pass's
            fused = false;
            pending = std::vector<CallEvent>();
        }
    }
    // With writes, the opens that began them end start-up too, and the flush
    // calls are known only after a pass of their own.
    std::unordered_set<uint64_t> flushes;
    if (!written.empty()) flushes = flush_calls_and_first_open(written, first);
    CallSplit& sp = r_.split;
    sp.known = true;
    for (size_t f = 0; f < nf; ++f)
        if (seen[f]) (soft[f] ? sp.software_files : sp.data_files)++;
    sp.startup_end_ns = first == UINT64_MAX ? 0 : first;
    sp.startup_ns = (first == UINT64_MAX ? cap_.end : std::clamp(first, cap_.start, cap_.end)) - cap_.start;
    for (size_t i = 0; i < nr_; ++i) {
        const Window& l = rank_life_[i];
        const uint64_t end = std::clamp(rank_startup_end_[i], l.start, l.end);
        r_.ranks[i].startup_ns = end - l.start;
    }
    if (fused && written.empty()) {
        for (const CallEvent& e : pending) {
            if (e.start_ns < first)
                account(startup[e.op()], e);
            else
                after_startup(e);
        }
        sp.startup = std::move(startup);
        sp.data = std::move(data);
        return;
    }
    pending = std::vector<CallEvent>();
    charge_split(soft, flushes, first);
}

// The opens and closes that belong to a write (by their place in the log):
// a close after the process wrote the file since it opened it, and the open
// that began those writes. A file written once and then only re-read (a
// config written at start-up, read every step) has its later opens and
// closes as metadata, not flush. On the same pass: opening a file to write
// it (a checkpoint's O_TRUNC open) ends start-up too (first, and the rank's
// start-up end): it is the write's, not the imports'.
std::unordered_set<uint64_t> DlAttribution::flush_calls_and_first_open(
    const std::unordered_set<uint64_t>& written, uint64_t& first) {
    struct Session {
        uint64_t open = UINT64_MAX;  // ordinal of the open that began it
        bool wrote = false;
    };
    std::unordered_map<uint64_t, Session> at;  // pid << 32 | file
    std::unordered_set<uint64_t> out;          // ordinals in the log
    CallLog::Cursor cur(log_.calls);
    uint64_t n = 0;
    for (CallEvent e; cur.next(e); ++n) {
        const int op = e.op();
        const uint64_t key = uint64_t{e.pid} << 32 | e.file();
        if (op == IOLENS_OP_OPEN && written.count(key)) {
            first = std::min(first, e.start_ns);
            if (const long i = rank_index(e.pid); i >= 0)
                rank_startup_end_[i] = std::min(rank_startup_end_[i], e.start_ns);
        }
        if (e.file() == CallEvent::kNoFile || e.has(CallEvent::kError)) continue;
        Session& s = at[key];
        if (op == IOLENS_OP_OPEN) {
            s = {n, false};
        } else if (op == IOLENS_OP_WRITE) {
            if (!s.wrote && s.open != UINT64_MAX) out.insert(s.open);
            s.wrote = true;
        } else if (op == IOLENS_OP_CLOSE) {
            if (s.wrote) out.insert(n);
            s = {};
        }
    }
    return out;
}

// Flush first (an open or close that belongs to a write:
// flush_calls_and_first_open), then start-up (before the first data read or
// write), then data (a data file's call, or one without a file); software
// calls after start-up are in none of them.
void DlAttribution::charge_split(const std::vector<uint8_t>& soft,
                                 const std::unordered_set<uint64_t>& flushes, uint64_t first) {
    CallSplit& sp = r_.split;
    std::unordered_map<uint32_t, OpStats> flush_of;
    CallLog::Cursor cur(log_.calls);
    uint64_t n = 0;
    for (CallEvent e; cur.next(e); ++n) {
        const uint32_t f = e.file();
        const bool has = f < soft.size();
        const int op = e.op();
        if (has && (op == IOLENS_OP_OPEN || op == IOLENS_OP_CLOSE) && flushes.count(n)) {
            account(sp.flush, e);
            account(flush_of[e.pid], e);
        } else if (e.start_ns < first) {
            account(sp.startup[op], e);
        } else if (!has || !soft[f]) {
            account(sp.data[op], e);
        }
    }
    for (auto& p : r_.processes)
        if (auto it = flush_of.find(p.info.pid); it != flush_of.end()) p.flush = it->second;
}

// Stalls, now that the windows are known: measured as the calls go by. Each
// call is charged to its epoch (by start time) on the same pass over the log.
// An epoch's table is the sum of its ranks' and of the calls of processes
// without a rank (sums and histograms add up exactly).
void DlAttribution::stalls_and_epoch_calls() {
    std::vector<OpTable> unranked(windows_.size());
    const bool by_epoch = !windows_.empty();
    // A call of a rank with per-rank tables goes to its rank's tables, on
    // its rank's thread (each); the others to the shared ones, on the
    // calling thread (every). The epochs' page cache adds the ranks' after
    // the walk: sums of integers, the same in any order.
    const auto charge = [&](const CallEvent& e, long i) {
        if (!by_epoch) return;
        const long k = epoch_at(i, e.start_ns);
        if (k < 0) return;
        EpochStats& ep = r_.epochs[k];
        const bool ranked = i >= 0 && per_rank_;
        account(ranked ? ep.ranks[i].ops[e.op()] : unranked[k][e.op()], e);
        if (e.has(CallEvent::kCountedRead))
            (ranked ? ep.ranks[i].page_cache : ep.page_cache).add_read(e.cache_read());
    };
    const auto charge_shared = [&](const CallEvent& e, long i) {
        if (i < 0 || !per_rank_) charge(e, i);
    };
    const auto charge_rank = [&](const CallEvent& e, uint32_t i) {
        if (per_rank_) charge(e, static_cast<long>(i));
    };
    // Window 0 is the rank's start-up (it ends by its first epoch's end, so
    // the windows stay ordered as StallSweep needs); the epochs follow.
    std::vector<std::vector<Interval>> spans(nr_);
    for (size_t i = 0; i < nr_; ++i) {
        const auto& ws = windows_of(i);
        uint64_t s0 = rank_life_[i].start, e0 = s0 + r_.ranks[i].startup_ns;
        if (!ws.empty()) s0 = std::min(s0, ws.front().start_ns), e0 = std::min(e0, ws.front().end_ns);
        spans[i].push_back({s0, std::max(s0, e0)});
        for (const auto& w : ws) spans[i].push_back({w.start_ns, w.end_ns});
    }
    // The timeline's bins: the same sweep over other windows (the first and
    // the last open-ended, so that a rank's bins add up to its totals).
    const size_t nb = in_.timeline_bins;
    uint64_t bin_ns = 1;
    std::vector<Interval> bins;
    if (nb) {
        bin_ns = std::max<uint64_t>(1, (cap_.end - cap_.start + nb - 1) / nb);
        for (size_t b = 0; b < nb; ++b)
            bins.push_back({b == 0 ? 0 : cap_.start + b * bin_ns,
                            b + 1 == nb ? UINT64_MAX : cap_.start + (b + 1) * bin_ns});
    }
    const auto bin_of = [&](uint64_t t) {
        return t < cap_.start ? size_t{0} : std::min<size_t>(nb - 1, (t - cap_.start) / bin_ns);
    };
    std::vector<StallSweep> sweeps, bin_sweeps;
    for (size_t i = 0; i < nr_; ++i) sweeps.emplace_back(rm_.ranks[i].roots, log_.offcpu, spans[i]);
    if (nb)
        for (size_t i = 0; i < nr_; ++i) bin_sweeps.emplace_back(rm_.ranks[i].roots, log_.offcpu, bins);
    std::vector<std::vector<uint64_t>> bin_reads(nb ? nr_ : 0, std::vector<uint64_t>(nb));
    walk_ranks_in_start_order(
        log_.calls, in_.reorder_calls, threads_, rm_,
        [&](size_t i) {
            sweeps[i] = StallSweep(rm_.ranks[i].roots, log_.offcpu, spans[i]);
            if (!nb) return;
            bin_sweeps[i] = StallSweep(rm_.ranks[i].roots, log_.offcpu, bins);
            bin_reads[i].assign(nb, 0);
        },
        [&](const OrderedCall& e, uint32_t rank) {
            sweeps[rank].add(e);
            if (!nb) return;
            bin_sweeps[rank].add(e);
            if (e.op() == IOLENS_OP_READ && e.has(CallEvent::kHasSize))
                bin_reads[rank][bin_of(e.start_ns)] += e.bytes;
        },
        charge_shared, charge_rank);
    if (per_rank_)
        for (EpochStats& ep : r_.epochs)
            for (const EpochRankStats& er : ep.ranks) ep.page_cache.merge(er.page_cache);
    if (nb && nr_) {
        Timeline t;
        t.start_ns = cap_.start;
        t.bin_ns = bin_ns;
        t.bins = nb;
        for (size_t i = 0; i < nr_; ++i) {
            RankStalls st = std::move(bin_sweeps[i]).finish();
            t.ranks.push_back(
                {r_.ranks[i].rank, std::move(bin_reads[i]), std::move(st.io_in), std::move(st.critical_in)});
        }
        r_.timeline = std::move(t);
    }
    std::vector<RankStalls> stalls;
    for (size_t i = 0; i < nr_; ++i) {
        stalls.push_back(std::move(sweeps[i]).finish());
        r_.ranks[i].io_time_ns = stalls[i].io_ns;
        r_.ranks[i].critical_io_ns = stalls[i].critical_ns;
        r_.ranks[i].threads = std::move(stalls[i].threads);
        r_.ranks[i].startup_critical_io_ns = stalls[i].critical_in[0];
    }
    sweeps.clear();
    for (size_t k = 0; k < windows_.size(); ++k) {
        EpochStats& ep = r_.epochs[k];
        ep.ops = std::move(unranked[k]);
        for (size_t i = 0; i < nr_; ++i) {
            ep.rank_sums.io_time_ns += stalls[i].io_in[k + 1];
            ep.rank_sums.critical_io_ns += stalls[i].critical_in[k + 1];
            if (!per_rank_) continue;
            EpochRankStats& er = ep.ranks[i];
            er.io_time_ns = stalls[i].io_in[k + 1];
            er.critical_io_ns = stalls[i].critical_in[k + 1];
            for (int op = 0; op < kOpCount; ++op) ep.ops[op].merge(er.ops[op]);
        }
    }
}

// Page-cache events by their time, block requests by their issue time.
void DlAttribution::epoch_page_cache_and_block() {
    if (windows_.empty()) return;
    const auto& unused = in_.page_cache_unused;
    size_t u = 0;
    for (size_t j = 0; j < log_.page_cache.size(); ++j) {
        const PageCacheEvent& e = log_.page_cache[j];
        const long i = e.pid ? rank_index(e.pid) : -1;
        const long k = epoch_at(i, e.ts_ns);
        while (u < unused.size() && unused[u].first < j) ++u;
        if (k < 0) continue;
        const auto rec = e.as_record();
        const uint64_t unread = u < unused.size() && unused[u].first == j ? unused[u].second : 0;
        r_.epochs[k].page_cache.add_pagecache(rec);
        r_.epochs[k].page_cache.readahead_unused_bytes += unread;
        if (i >= 0 && per_rank_) {
            r_.epochs[k].ranks[i].page_cache.add_pagecache(rec);
            r_.epochs[k].ranks[i].page_cache.readahead_unused_bytes += unread;
        }
    }
    BlockLog::Cursor blocks(log_.blocks);
    for (BlockEvent e; blocks.next(e);) {
        if (e.pid == 0) continue;
        const long i = rank_index(e.pid);
        const long k = epoch_at(i, e.issue_ns);
        if (k < 0) continue;
        const auto rec = e.as_record();
        r_.epochs[k].block.add(rec);
        if (i >= 0 && per_rank_) r_.epochs[k].ranks[i].block.add(rec);
    }
}

void DlAttribution::imbalance() {
    if (nr_ < 2) return;
    r_.rank_imbalance = rank_imbalance_of(r_.ranks);
}

}  // namespace

std::optional<RankImbalance> rank_imbalance_of(const std::vector<RankStats>& ranks) {
    if (ranks.size() < 2) return std::nullopt;
    std::vector<uint64_t> bytes, io;
    RankImbalance im;
    for (const auto& rs : ranks) {
        bytes.push_back(rs.ops[IOLENS_OP_READ].bytes);
        io.push_back(rs.io_time_ns);
        if (rs.io_time_ns > im.straggler_io_time_ns || io.size() == 1) {
            im.straggler_rank = rs.rank;
            im.straggler_io_time_ns = rs.io_time_ns;
        }
    }
    im.read_bytes = spread(bytes);
    im.io_time_ns = spread(io);
    return im;
}

void attribute_dl(Report& r, const DlInputs& in) { DlAttribution(r, in).run(); }

}  // namespace iolens::model
