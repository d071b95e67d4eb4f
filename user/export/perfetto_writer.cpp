// Perfetto's native trace format (--format perfetto): a protobuf `Trace`,
// TracePacket after TracePacket, written by hand (protobuf.h) with the field
// numbers of Perfetto's public protos (protos/perfetto/trace/...;
// tests/export/perfetto_subset.proto holds the subset used). docs/export.md
// describes the tracks.
//
// Size: each thread track is a packet sequence of its own whose defaults
// name the track and the clock, so a call costs a SLICE_BEGIN packet with
// interned names and file paths and a SLICE_END of about 20 bytes.
#include <algorithm>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "export/protobuf.h"
#include "export/trace.h"

namespace iolens::exports {

namespace {

// TracePacket
constexpr uint32_t kTimestamp = 8, kClockSnapshot = 6, kTrackEvent = 11, kTrackDescriptor = 60,
                   kSequenceId = 10, kInternedData = 12, kSequenceFlags = 13, kDefaults = 59,
                   kFirstPacketOnSequence = 87;
// TracePacketDefaults, TrackEventDefaults
constexpr uint32_t kDefaultsClockId = 58, kDefaultsTrackEvent = 11, kDefaultsTrackUuid = 11;
// ClockSnapshot, Clock; BuiltinClock
constexpr uint32_t kClocks = 1, kPrimaryClock = 2, kClockId = 1, kClockTimestamp = 2, kClockIncremental = 3;
constexpr uint32_t kRealtime = 1, kMonotonic = 3;
// A sequence-scoped clock (ids 64-127), incremental: a packet's timestamp
// is a delta from the previous one on it (clock_snapshot.proto).
constexpr uint32_t kIncrementalClock = 64;
// TrackDescriptor, ProcessDescriptor, ThreadDescriptor
constexpr uint32_t kUuid = 1, kName = 2, kProcess = 3, kThread = 4, kParentUuid = 5, kCounter = 8;
constexpr uint32_t kPdPid = 1, kPdCmdline = 2, kPdName = 6;
constexpr uint32_t kTdPid = 1, kTdTid = 2, kTdName = 5;
// TrackEvent; its types
constexpr uint32_t kTeType = 9, kTeTrackUuid = 11, kTeNameIid = 10, kTeName = 23, kTeCategoryIids = 3,
                   kTeDoubleCounter = 44, kTeDebug = 4;
constexpr uint32_t kSliceBegin = 1, kSliceEnd = 2, kInstant = 3, kCounterEvent = 4;
// DebugAnnotation
constexpr uint32_t kDaNameIid = 1, kDaUint = 3, kDaInt = 4, kDaStringIid = 17;
// InternedData (each entry: iid = 1, name / str = 2)
constexpr uint32_t kIdCategories = 1, kIdNames = 2, kIdAnnotationNames = 3, kIdStrings = 29;
// sequence_flags
constexpr uint32_t kIncrementalStateCleared = 1, kNeedsIncrementalState = 2;

// Track uuids: kinds in the top bits.
constexpr uint64_t kRankTrack = 1ull << 56, kProcessTrack = 2ull << 56, kThreadTrack = 3ull << 56,
                   kOffCpuTrack = 4ull << 56, kAsyncTrack = 5ull << 56, kDeviceTrack = 6ull << 56,
                   kCounterTrack = 7ull << 56;
constexpr size_t kMaxLanes = 64;  // async lanes per process (more overlap into the last)

enum AnnotationName : uint32_t {
    kFile = 1,
    kBytes,
    kOffset,
    kCacheMiss,
    kBlocked,
    kRequested,
    kFd,
    kCallSite,
    kAnnotations
};
constexpr const char* kAnnotationNames[] = {
    "", "file", "bytes", "offset", "cache_miss_bytes", "blocked_ns", "requested", "fd", "call_site"};

// Interning: a string's iid is global; each sequence emits an entry the
// first time it uses it (interned data is per sequence).
class Interner {
public:
    uint64_t iid(std::string_view s) {
        auto it = ids_.find(std::string(s));  // few distinct names; paths are keyed by hash below
        if (it != ids_.end()) return it->second;
        const uint64_t id = ids_.size() + 1;
        ids_.emplace(std::string(s), id);
        return id;
    }

private:
    std::unordered_map<std::string, uint64_t> ids_;
};

struct Sequence {
    uint32_t id = 0;
    uint64_t track = 0;  // the default track (0: none)
    bool started = false;
    std::vector<bool> names, categories, strings;  // emitted iids
    // Thread sequences: timestamps are deltas on an incremental clock of the
    // sequence (kIncrementalClock), from the last packet that used it.
    bool incremental = false;
    uint64_t last_ts = 0;
    static bool mark(std::vector<bool>& v, uint64_t iid) {
        if (iid >= v.size()) v.resize(std::max<size_t>(iid + 1, v.size() * 2));
        if (v[iid]) return false;
        v[iid] = true;
        return true;
    }
};

class PerfettoWriter final : public TraceWriter {
public:
    PerfettoWriter(const TraceContext& ctx, OutStream& out) : ctx_(ctx), out_(out) {}

    void begin() override {
        // The clock: events are on CLOCK_MONOTONIC, the recording's realtime
        // anchor goes with it.
        std::string& p = packet_;
        p.clear();
        pb::uint(p, kSequenceId, kMiscSequence);
        size_t cs = pb::begin(p, kClockSnapshot);
        size_t c = pb::begin(p, kClocks);
        pb::uint(p, kClockId, kMonotonic);
        pb::uint(p, kClockTimestamp, ctx_.mono_start);
        pb::end(p, c);
        c = pb::begin(p, kClocks);
        pb::uint(p, kClockId, kRealtime);
        pb::uint(p, kClockTimestamp, ctx_.unix_start);
        pb::end(p, c);
        pb::uint(p, kPrimaryClock, kMonotonic);
        pb::end(p, cs);
        pb::uint(p, kTimestamp, ctx_.mono_start);
        pb::uint(p, kDefaultsClockId, kMonotonic);  // TracePacket.timestamp_clock_id: same number
        emit();

        const auto& ranks = ctx_.report.ranks;
        for (size_t i = 0; i < ranks.size(); ++i) {
            const uint64_t uuid = kRankTrack | i;
            descriptor(uuid, 0, ctx_.rank_label(static_cast<long>(i)));
            const auto& windows = ctx_.attribution.windows(static_cast<long>(i));
            for (size_t k = 0; k < windows.size() && k < ctx_.report.epochs.size(); ++k) {
                const auto& w = windows[k];
                if (w.end_ns <= w.start_ns) continue;
                const std::string name = "epoch " + std::to_string(ctx_.report.epochs[k].index);
                slice_begin(misc_, uuid, w.start_ns, name, "epoch", nullptr);
                slice_end(misc_, uuid, w.end_ns);
            }
        }
        uint32_t last = 0;
        for (const auto& pr : ctx_.report.processes) {
            if (pr.info.pid == last) continue;  // a reused pid: one track
            last = pr.info.pid;
            const long rank = ctx_.attribution.rank_index(pr.info.pid);
            process_descriptor(pr.info, ctx_.rank_label(rank) + ": " + ctx_.process_label(pr.info.pid));
        }
    }

    void call(const CallView& c) override {
        const auto& r = c.r;
        const auto annotate = [&](std::string& te, Sequence& seq) {
            if (c.file) annotation_string(te, seq, kFile, c.file_hash, *c.file);
            if (r.ret >= 0)
                annotation_uint(te, kBytes, static_cast<uint64_t>(r.ret));
            else
                annotation_int(te, kBytes, r.ret);
            if (r.offset != IOLENS_NO_OFFSET) annotation_uint(te, kOffset, r.offset);
            if (c.cache && c.cache->miss_bytes) annotation_uint(te, kCacheMiss, c.cache->miss_bytes);
            if (r.blocked_ns) annotation_uint(te, kBlocked, r.blocked_ns);
            if (c.call_site) annotation_string(te, seq, kCallSite, c.call_site_hash, *c.call_site);
        };
        if (c.async()) {
            // Requests overlap: each on a lane of its process where it
            // overlaps nothing (a lane's requests all ended before it began).
            const uint64_t track = async_lane(r.pid, r.start_ns, r.start_ns + r.duration_ns);
            std::string name =
                std::string(c.path == IOLENS_PATH_AIO ? "aio " : "io_uring ") + model::op_name(r.op);
            slice_begin(misc_, track, r.start_ns, name, c.path == IOLENS_PATH_AIO ? "aio" : "io_uring",
                        annotate);
            slice_end(misc_, track, r.start_ns + r.duration_ns);
            return;
        }
        Sequence& seq = thread(r.pid, r.tid);
        // Calls have no category (their track says what they are), copies "copy".
        slice_begin(seq, 0, r.start_ns, c.syscall, c.path == IOLENS_PATH_COPY ? "copy" : "", annotate);
        slice_end(seq, 0, r.start_ns + r.duration_ns);
    }

    void offcpu(const iolens_offcpu_rec& r, long) override {
        thread(r.pid, r.tid);
        const uint64_t track = kOffCpuTrack | ((uint64_t{r.pid} << 24) ^ r.tid);
        if (offcpu_tracks_.emplace(track, true).second)
            descriptor(track, thread_uuid(r.pid, r.tid), r.tid == r.pid ? "main thread off-CPU" : "off-CPU");
        slice_begin(misc_, track, r.start_ns, r.state & 2 ? "off-CPU (D)" : "off-CPU (S)", "sched", nullptr);
        slice_end(misc_, track, r.end_ns);
    }

    void marker(const iolens_marker_rec& r, std::string_view text, long rank) override {
        const uint64_t track = rank >= 0 ? kRankTrack | static_cast<uint64_t>(rank) : 0;
        if (track == 0) {
            thread(r.pid, r.tid);
            event(misc_, thread_uuid(r.pid, r.tid), r.ts_ns, kInstant, text, "marker", nullptr);
        } else {
            event(misc_, track, r.ts_ns, kInstant, text, "marker", nullptr);
        }
    }

    void counters(const std::vector<CounterSeries>& series) override {
        std::unordered_map<uint32_t, uint64_t> devices;
        uint64_t n = 0;
        for (const auto& s : series) {
            uint64_t parent;
            if (s.rank >= 0) {
                parent = kRankTrack | static_cast<uint64_t>(s.rank);
            } else {
                auto [d, inserted] = devices.try_emplace(s.dev, kDeviceTrack | devices.size());
                parent = d->second;
                if (inserted)
                    descriptor(parent, 0, "block " + recording::device_name(ctx_.report.capture, s.dev));
            }
            const uint64_t uuid = kCounterTrack | n++;
            descriptor(uuid, parent, s.name, /*counter=*/true);
            for (const auto& v : s.samples) {
                std::string& te = te_;
                te.clear();
                pb::uint(te, kTeType, kCounterEvent);
                pb::uint(te, kTeTrackUuid, uuid);
                pb::dbl(te, kTeDoubleCounter, v.value);
                finish_event(misc_, v.ts);
            }
        }
    }

    void end() override {}

private:
    static constexpr uint32_t kMiscSequence = 1;

    uint64_t thread_uuid(uint32_t pid, uint32_t tid) const {
        return kThreadTrack | ((uint64_t{pid} << 24) ^ tid);
    }

    // Writes packet_ as one Trace.packet.
    void emit() {
        std::string& b = out_.buffer();
        pb::tag(b, 1, pb::kBytes);
        pb::varint(b, packet_.size());
        b.append(packet_);
        ++events_;
        out_.maybe_flush();
    }

    void descriptor(uint64_t uuid, uint64_t parent, std::string_view name, bool counter = false) {
        std::string& p = packet_;
        p.clear();
        pb::uint(p, kSequenceId, kMiscSequence);
        size_t d = pb::begin(p, kTrackDescriptor);
        pb::uint(p, kUuid, uuid);
        if (parent) pb::uint(p, kParentUuid, parent);
        pb::str(p, kName, name);
        if (counter) {
            pb::tag(p, kCounter, pb::kBytes);
            pb::varint(p, 0);
        }
        pb::end(p, d);
        emit();
    }

    void process_descriptor(const model::ProcessInfo& info, const std::string& name) {
        std::string& p = packet_;
        p.clear();
        pb::uint(p, kSequenceId, kMiscSequence);
        size_t d = pb::begin(p, kTrackDescriptor);
        pb::uint(p, kUuid, kProcessTrack | info.pid);
        size_t pd = pb::begin(p, kProcess);
        pb::uint(p, kPdPid, info.pid);
        for (const auto& a : info.cmdline) pb::str(p, kPdCmdline, a);
        pb::str(p, kPdName, name);
        pb::end(p, pd);
        pb::end(p, d);
        emit();
    }

    // The thread's track and packet sequence, declared on first use.
    Sequence& thread(uint32_t pid, uint32_t tid) {
        const uint64_t key = uint64_t{pid} << 32 | tid;
        auto [it, inserted] = threads_.try_emplace(key);
        if (!inserted) return it->second;
        Sequence& s = it->second;
        s.id = next_sequence_++;
        s.track = thread_uuid(pid, tid);
        s.incremental = true;
        std::string& p = packet_;
        p.clear();
        pb::uint(p, kSequenceId, kMiscSequence);
        size_t d = pb::begin(p, kTrackDescriptor);
        pb::uint(p, kUuid, s.track);
        pb::uint(p, kParentUuid, kProcessTrack | pid);
        size_t td = pb::begin(p, kThread);
        pb::uint(p, kTdPid, pid);
        pb::uint(p, kTdTid, tid);
        pb::str(p, kTdName, tid == pid ? "main" : "thread " + std::to_string(tid));
        pb::end(p, td);
        pb::end(p, d);
        emit();
        return s;
    }

    uint64_t async_lane(uint32_t pid, uint64_t start, uint64_t end) {
        auto& lanes = lanes_[pid];
        size_t i = 0;
        while (i < lanes.size() && lanes[i] > start) ++i;
        if (i == lanes.size()) {
            if (lanes.size() < kMaxLanes) {
                lanes.push_back(0);
                const uint64_t parent = kProcessTrack | pid;
                descriptor(kAsyncTrack | uint64_t{pid} << 8 | i, parent,
                           "async requests " + std::to_string(i + 1));
            } else {
                i = lanes.size() - 1;
            }
        }
        lanes[i] = std::max(lanes[i], end);
        return kAsyncTrack | uint64_t{pid} << 8 | i;
    }

    template <typename F>
    void slice_begin(Sequence& seq, uint64_t track, uint64_t ts, std::string_view name, std::string_view cat,
                     const F& annotate) {
        event(seq, track, ts, kSliceBegin, name, cat, annotate);
    }
    void slice_end(Sequence& seq, uint64_t track, uint64_t ts) {
        std::string& te = te_;
        te.clear();
        pb::uint(te, kTeType, kSliceEnd);
        if (track) pb::uint(te, kTeTrackUuid, track);
        finish_event(seq, ts);
    }

    template <typename F>
    void event(Sequence& seq, uint64_t track, uint64_t ts, uint32_t type, std::string_view name,
               std::string_view cat, const F& annotate) {
        interned_.clear();
        std::string& te = te_;
        te.clear();
        pb::uint(te, kTeType, type);
        if (track) pb::uint(te, kTeTrackUuid, track);
        if (!cat.empty()) {
            const uint64_t cat_iid = categories_.iid(cat);
            if (Sequence::mark(seq.categories, cat_iid)) intern(kIdCategories, cat_iid, cat);
            pb::uint(te, kTeCategoryIids, cat_iid);
        }
        if (name.size() > 48) {  // marker texts and such: not interned
            pb::str(te, kTeName, name);
        } else {
            const uint64_t name_iid = names_.iid(name);
            if (Sequence::mark(seq.names, name_iid)) intern(kIdNames, name_iid, name);
            pb::uint(te, kTeNameIid, name_iid);
        }
        if constexpr (!std::is_same_v<F, std::nullptr_t>) annotate(te, seq);
        finish_event(seq, ts);
    }

    void intern(uint32_t kind, uint64_t iid, std::string_view s) {
        size_t e = pb::begin(interned_, kind);
        pb::uint(interned_, 1, iid);
        pb::str(interned_, 2, s);
        pb::end(interned_, e);
    }

    void annotation_uint(std::string& te, uint32_t name, uint64_t v) {
        std::string& a = annotation_;
        a.clear();
        pb::uint(a, kDaNameIid, name);
        pb::uint(a, kDaUint, v);
        pb::tag(te, kTeDebug, pb::kBytes);
        pb::varint(te, a.size());
        te.append(a);
    }
    void annotation_int(std::string& te, uint32_t name, int64_t v) {
        std::string& a = annotation_;
        a.clear();
        pb::uint(a, kDaNameIid, name);
        pb::int64(a, kDaInt, v);
        pb::tag(te, kTeDebug, pb::kBytes);
        pb::varint(te, a.size());
        te.append(a);
    }
    // A string value, interned by its hash (file paths: one entry each per sequence).
    void annotation_string(std::string& te, Sequence& seq, uint32_t name, uint64_t hash,
                           const std::string& s) {
        auto [it, inserted] = string_ids_.try_emplace(hash, string_ids_.size() + 1);
        const uint64_t iid = it->second;
        if (Sequence::mark(seq.strings, iid)) intern(kIdStrings, iid, s);
        std::string& a = annotation_;
        a.clear();
        pb::uint(a, kDaNameIid, name);
        pb::uint(a, kDaStringIid, iid);
        pb::tag(te, kTeDebug, pb::kBytes);
        pb::varint(te, a.size());
        te.append(a);
    }

    // te_ (a TrackEvent) and interned_ into one packet on the sequence.
    // A thread sequence's first packet: a fresh incremental state, the
    // sequence's clock (incremental, starting at ts), its defaults (that
    // clock, the thread's track) and the annotation names.
    void start_thread_sequence(Sequence& seq, uint64_t ts) {
        seq.started = true;
        seq.last_ts = ts;
        std::string& p = start_;
        p.clear();
        pb::uint(p, kSequenceId, seq.id);
        pb::uint(p, kSequenceFlags, kIncrementalStateCleared);
        pb::uint(p, kFirstPacketOnSequence, 1);
        size_t cs = pb::begin(p, kClockSnapshot);
        size_t c = pb::begin(p, kClocks);
        pb::uint(p, kClockId, kIncrementalClock);
        pb::uint(p, kClockTimestamp, ts);
        pb::uint(p, kClockIncremental, 1);
        pb::end(p, c);
        c = pb::begin(p, kClocks);
        pb::uint(p, kClockId, kMonotonic);
        pb::uint(p, kClockTimestamp, ts);
        pb::end(p, c);
        pb::end(p, cs);
        size_t d = pb::begin(p, kDefaults);
        pb::uint(p, kDefaultsClockId, kIncrementalClock);
        size_t t = pb::begin(p, kDefaultsTrackEvent);
        pb::uint(p, kDefaultsTrackUuid, seq.track);
        pb::end(p, t);
        pb::end(p, d);
        size_t id = pb::begin(p, kInternedData);
        for (uint32_t i = 1; i < kAnnotations; ++i) {
            size_t e = pb::begin(p, kIdAnnotationNames);
            pb::uint(p, 1, i);
            pb::str(p, 2, kAnnotationNames[i]);
            pb::end(p, e);
        }
        pb::end(p, id);
        std::swap(packet_, start_);
        emit();
        std::swap(packet_, start_);
    }

    void finish_event(Sequence& seq, uint64_t ts) {
        if (seq.incremental && !seq.started) start_thread_sequence(seq, ts);
        std::string& p = packet_;
        p.clear();
        if (!seq.incremental) {
            pb::uint(p, kTimestamp, ts);
        } else if (ts >= seq.last_ts) {
            pb::uint(p, kTimestamp, ts - seq.last_ts);
            seq.last_ts = ts;
        } else {  // earlier than the last one (no negative deltas): absolute
            pb::uint(p, kTimestamp, ts);
            pb::uint(p, kDefaultsClockId, kMonotonic);  // TracePacket.timestamp_clock_id
        }
        pb::uint(p, kSequenceId, seq.id);
        if (!seq.started) {
            // The sequence's first packet: its defaults and a fresh interning
            // state (with the annotation names every event uses).
            seq.started = true;
            pb::uint(p, kSequenceFlags, kIncrementalStateCleared | kNeedsIncrementalState);
            pb::uint(p, kFirstPacketOnSequence, 1);
            size_t d = pb::begin(p, kDefaults);
            pb::uint(p, kDefaultsClockId, kMonotonic);
            if (seq.track) {
                size_t t = pb::begin(p, kDefaultsTrackEvent);
                pb::uint(p, kDefaultsTrackUuid, seq.track);
                pb::end(p, t);
            }
            pb::end(p, d);
            for (uint32_t i = 1; i < kAnnotations; ++i) intern(kIdAnnotationNames, i, kAnnotationNames[i]);
        } else {
            pb::uint(p, kSequenceFlags, kNeedsIncrementalState);
        }
        pb::tag(p, kTrackEvent, pb::kBytes);
        pb::varint(p, te_.size());
        p.append(te_);
        if (!interned_.empty()) {
            pb::tag(p, kInternedData, pb::kBytes);
            pb::varint(p, interned_.size());
            p.append(interned_);
            interned_.clear();
        }
        emit();
    }

    const TraceContext& ctx_;
    OutStream& out_;
    std::string packet_, te_, interned_, annotation_, start_;
    Sequence misc_{kMiscSequence, 0, false, {}, {}, {}};
    uint32_t next_sequence_ = kMiscSequence + 1;
    std::unordered_map<uint64_t, Sequence> threads_;
    std::unordered_map<uint64_t, bool> offcpu_tracks_;
    std::unordered_map<uint32_t, std::vector<uint64_t>> lanes_;
    Interner names_, categories_;
    std::unordered_map<uint64_t, uint64_t> string_ids_;
};

}  // namespace

std::unique_ptr<TraceWriter> make_perfetto_writer(const TraceContext& ctx, OutStream& out) {
    return std::make_unique<PerfettoWriter>(ctx, out);
}

}  // namespace iolens::exports
