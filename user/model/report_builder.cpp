#include "model/report_builder.h"

#include <fmt/format.h>
#include <malloc.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <deque>
#include <future>
#include <mutex>
#include <thread>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/access_pattern.h"
#include "model/dl_attribution.h"
#include "model/dl_log.h"
#include "model/file_class.h"
#include "model/readahead_judge.h"
#include "model/record_text.h"
#include "model/record_walk.h"
#include "util/flat_map.h"
#include "util/huge_pages.h"

namespace iolens::model {

namespace {

// A file's key: two packed 64-bit words, (dev, ino) (a stream's is one word,
// State::stream_key_of). One hash lookup per event, no allocation once the
// key has been seen.
struct Key {
    uint64_t a, b;
    bool operator==(const Key&) const = default;
};
struct KeyHash {
    uint64_t operator()(const Key& k) const {
        uint64_t h = k.b ^ (k.a * 0x9e3779b97f4a7c15ull);
        h ^= h >> 32;
        h *= 0xd6e8feb86659fd93ull;
        h ^= h >> 29;
        return h * 0x9e3779b97f4a7c15ull;  // good high bits: FlatMap takes them
    }
};

Key file_key(uint32_t dev, uint64_t ino) { return {dev, ino}; }

// A file's figures while the capture is read. Its calls' OpStats (176 bytes
// each, two histograms) are not kept while the capture is read when they can
// be made at the end: a training job may touch millions of files, only
// BuilderOptions::max_files are listed, and which ones is known only at the
// end. A file whose calls are in the DL log (dl_index set) is counted there
// only by its bytes and calls, for the ranking; finish() accounts the listed
// ones' calls from the log, in the same order, so their tables are the same.
// The first max_files files seen, and any file without the log
// (dl_attribution off, or more than 2M files), keep their OpStats as their
// calls come, for the syscall classes they saw: a job of fewer files than
// are listed (most jobs) needs no second pass over the log, and the memory
// this takes is bounded by max_files. Once a file past the first max_files
// makes a call, the job needs that pass anyway: the first files' OpStats
// are dropped then, and made from the log too (State::drop_live; ~12 MiB
// in a 200,000-file job).
// A file's path, or none: 8 bytes (a std::string took 32 in each of
// millions of FileAccums, and as much again on the heap).
class FilePath {
public:
    FilePath& operator=(std::string_view s) {
        if (s.empty()) {
            p_.reset();
            return *this;
        }
        const auto n = static_cast<uint32_t>(s.size());
        auto p = std::make_unique_for_overwrite<char[]>(sizeof n + s.size());  // s may be our own view()
        std::memcpy(p.get(), &n, sizeof n);
        std::memcpy(p.get() + sizeof n, s.data(), s.size());
        p_ = std::move(p);
        return *this;
    }
    std::string_view view() const {
        if (!p_) return {};
        uint32_t n = 0;
        std::memcpy(&n, p_.get(), sizeof n);
        return {p_.get() + sizeof n, n};
    }
    bool empty() const { return !p_; }
    void reset() { p_.reset(); }

private:
    std::unique_ptr<char[]> p_;  // its length (uint32_t), then its bytes
};

// 192 bytes (a job may touch millions of files), laid out for the walk's two
// passes (State::file_syscall), which write different fields on different
// threads and miss the cache on nearly every new file: the file pass's
// fields in the first cache line, the process pass's in the other two (what
// it writes for every read, access and page_cache's read fields, in the
// second). What most files never have is behind one pointer for each pass.
// The file pass writes ino, calls, rw_bytes, dl_index, size, path, page_cache's
// event fields (in the third line, on page-cache events only) and
// `file_side` (read-ahead, async); the process pass access, ops,
// page_cache's read fields, `process_side` (reads, paths) and reads_clipped.
struct alignas(64) FileAccum {
    // First cache line (the file pass).
    uint64_t ino = 0;
    uint64_t calls = 0;
    uint64_t rw_bytes = 0;  // read + write bytes (FileStats::ops): the ranking
    uint32_t dev = 0;
    uint32_t dl_index = kNoDlIndex;  // its DL log file index (DlLog::add_file), once a call was logged
    static constexpr uint32_t kNoDlIndex = UINT32_MAX;
    uint32_t index = 0;  // its own place in State::files (its streams' keys)
    bool early = false;  // among the first max_files files seen: OpStats kept live
    uint64_t size = 0;
    FilePath path;
    struct FileSide {
        // For the readahead judgement (readahead_judge.h): its read-ahead
        // pages (and ProcessSide::reads).
        std::vector<ReadaheadSpan> readahead;
        std::unique_ptr<AsyncDepth> async;  // once an AIO or io_uring request was on it
    };
    std::unique_ptr<FileSide> file_side;
    // Second and third cache lines (the process pass): access, ops and the
    // first 40 bytes of page_cache (the read fields) in the second.
    AccessCounts access;  // judged so far (sequential vs random)
    // Kept as calls come (see above).
    std::unique_ptr<std::array<std::unique_ptr<OpStats>, kOpCount>> ops;
    PageCacheStats page_cache;
    struct ProcessSide {
        std::vector<ReadSpan> reads;       // the reads of the file (streams' runs once they ended)
        std::unique_ptr<PathTable> paths;  // once a call took a path other than syscalls
    };
    std::unique_ptr<ProcessSide> process_side;
    bool reads_clipped = false;  // BuilderOptions::max_read_spans reached: readahead not judged

    FileSide& file_side_made() {
        if (!file_side) file_side = std::make_unique<FileSide>();
        return *file_side;
    }
    ProcessSide& process_side_made() {
        if (!process_side) process_side = std::make_unique<ProcessSide>();
        return *process_side;
    }
    bool has_readahead() const { return file_side && !file_side->readahead.empty(); }
    bool in_log() const { return dl_index < CallEvent::kNoFile; }
    // Its OpStats are made at the end from the log (not kept live).
    bool deferred() const { return !early && in_log(); }
    void account_live(int i, const CallEvent& e) {
        if (!ops) ops = std::make_unique<std::array<std::unique_ptr<OpStats>, kOpCount>>();
        auto& o = (*ops)[i];
        if (!o) o = std::make_unique<OpStats>();
        account(*o, e);
    }
    // A call or page-cache activity.
    bool touched() const { return calls != 0 || !page_cache.empty(); }
    // pending: accesses still waiting in their streams' windows, judged.
    // Without the OpStats of a file in the log (finish() adds them) and
    // without paths.complete(), which needs them.
    // Into f, a FileStats just made (FileStats is ~2 KiB: filled in place,
    // not returned and moved).
    void stats(FileStats& f, const AccessCounts& pending) const {
        f.path = path.view();
        f.dev = dev;
        f.ino = ino;
        f.size = size;
        if (ops)
            for (int i = 0; i < kOpCount; ++i)
                if ((*ops)[i]) f.ops[i] = *(*ops)[i];
        f.sequential = access.sequential + pending.sequential;
        f.random = access.random + pending.random;
        f.page_cache = page_cache;
        f.software = software_path(f.path);
        if (process_side && process_side->paths) f.paths = *process_side->paths;
        if (file_side && file_side->async) f.async = file_side->async->stats();
    }
};
static_assert(sizeof(FileAccum) == 192,
              "a cache line for the file pass, two for the process pass (see above)");
static_assert(offsetof(FileAccum, access) == 64, "the process pass's fields start a cache line");

}  // namespace

struct ReportBuilder::State {
    BuilderOptions options;
    CaptureInfo capture;
    std::unordered_map<uint32_t, ProcessStats> processes;
    std::vector<ProcessStats> retired;                     // exited processes whose pid was reused later
    std::unordered_map<uint32_t, AsyncDepth> async_depth;  // by pid: processes with async requests
    // Files and streams live in Chunked blocks on huge pages (addresses
    // stable, as in a deque: AccessJudge and the
    // one-entry caches below point into them), found through flat maps.
    util::Chunked<FileAccum> files;
    util::FlatIndex<Key, KeyHash> file_at;
    // Per (pid, file) -- one process's use of one file -- in one node (a
    // job may have a million such pairs): where its previous read/write
    // ended (sequential vs random), and the bytes its reads brought into the
    // cache not yet returned (split_read). Keyed pid << 32 | the file's
    // index in files (64 bytes a stream, where the (pid, dev, ino) key made
    // 72); reads without file identity are one stream per process, under
    // kNoFileStream.
    static constexpr uint32_t kNoFileStream = UINT32_MAX;
    static uint64_t stream_key_of(uint32_t pid, uint32_t file) { return uint64_t{pid} << 32 | file; }
    // A file's stream: a file named (0, 0) -- never from the kernel side,
    // only from a hand-made recording -- shares the no-file stream, as it
    // did under the (pid, dev, ino) key (and as `iolens export` keys it).
    static uint32_t stream_file(const FileAccum* f) {
        return f && (f->dev != 0 || f->ino != 0) ? f->index : kNoFileStream;
    }
    struct Stream {
        uint64_t key;
        AccessStream access;
        uint64_t prefetched = 0;
        ReadSpan reads;  // the run of adjacent reads going on (hi 0: none)
        uint32_t file() const { return static_cast<uint32_t>(key); }
    };
    static_assert(sizeof(Stream) == 64, "a million streams: keep it one cache line");
    util::Chunked<Stream> streams;
    util::FlatIndex<uint64_t, util::IntHash> stream_at;
    uint64_t stream_key(uint32_t i) const { return streams[i].key; }
    Key file_key_of(uint32_t i) const { return file_key(files[i].dev, files[i].ino); }
    uint32_t find_file(const Key& k) const {
        return file_at.find(k, [this](uint32_t i) { return file_key_of(i); });
    }
    AccessJudge access;  // sequential vs random, in start order (access_pattern.h)
    PageCacheStats page_cache;
    BlockAccumulator block;
    ProcessBlock block_unattributed;
    uint64_t records = 0;
    uint64_t skipped = 0;
    size_t read_spans = 0;  // kept in FileAccum::reads, all files (BuilderOptions::max_read_spans)
    DlLog log;              // compact events for ranks, epochs and stalls (dl_log.h)
    EnvByPid env;
    // Caches of the files and streams used last: a process issues its calls
    // in runs, mostly on one file, and a few DataLoader workers take turns,
    // so most events skip the index (whose probe reads a value far away in
    // memory). Chunked elements (and the processes' unordered_map nodes) never
    // move, so the
    // pointers stay valid.
    template <class T, class K, class H>
    struct Recent {
        struct Entry {
            K key;
            T* value = nullptr;
        };
        std::array<Entry, 64> at{};
        static size_t slot(const K& k) { return static_cast<size_t>(H{}(k) >> 58); }
        T* find(const K& k) const {
            const Entry& e = at[slot(k)];
            return e.value && e.key == k ? e.value : nullptr;
        }
        T& put(const K& k, T& v) {
            at[slot(k)] = {k, &v};
            return v;
        }
        void clear() { at = {}; }
    };
    uint32_t last_pid = 0;
    ProcessStats* last_process = nullptr;
    Recent<FileAccum, Key, KeyHash> recent_files;
    Recent<Stream, uint64_t, util::IntHash> recent_streams;

    Stream& stream(uint32_t pid, uint32_t file) {
        const uint64_t k = stream_key_of(pid, file);
        if (Stream* st = recent_streams.find(k)) return *st;
        const auto key_of = [this](uint32_t i) { return stream_key(i); };
        uint32_t at = stream_at.find(k, key_of);
        if (at == util::FlatIndex<uint64_t, util::IntHash>::kNone) {
            at = static_cast<uint32_t>(streams.size());
            streams.emplace_back().key = k;
            stream_at.insert(k, at, key_of);
        }
        return recent_streams.put(k, streams[at]);
    }

    ProcessStats& process(uint32_t pid) {
        if (last_process && last_pid == pid) return *last_process;
        auto [it, inserted] = processes.try_emplace(pid);
        if (inserted) it->second.info.pid = pid;
        last_pid = pid;
        last_process = &it->second;
        return it->second;
    }

    FileAccum& file(uint32_t dev, uint64_t ino) {
        const Key k = file_key(dev, ino);
        if (FileAccum* f = recent_files.find(k)) return *f;
        uint32_t at = find_file(k);
        if (at == util::FlatIndex<Key, KeyHash>::kNone) {
            at = static_cast<uint32_t>(files.size());
            FileAccum& f = files.emplace_back();
            f.dev = dev;
            f.ino = ino;
            f.index = at;
            f.early = at < options.max_files;
            file_at.insert(k, at, [this](uint32_t i) { return file_key_of(i); });
        }
        return recent_files.put(k, files[at]);
    }

    // What the process pass needs of the file pass, for one syscall record:
    // its file (FileAccum elements never move), its index in the DL log and
    // its stream's file part.
    struct PreparedCall {
        FileAccum* file = nullptr;  // none: the call has no file
        uint32_t file_index = CallEvent::kNoFile;
        uint32_t stream_file = kNoFileStream;  // the call's stream's (stream_key_of)
        bool deferred = false;                 // FileAccum::deferred()
        // Calls in a row that this stands for (a run of reads of one file,
        // a SYSCALL_RUN record): the file pass's output stays small.
        uint32_t count = 1;
        uint32_t pid = 0;  // the caller: its stream's key, for ProcessPass's prefetch
        bool same(const PreparedCall& o) const {
            return file == o.file && file_index == o.file_index && stream_file == o.stream_file &&
                   deferred == o.deferred && pid == o.pid;
        }
    };
    // The records are walked in two passes that share nothing they write
    // (PreparedCall carries what the second needs of the first): the file
    // pass (the file table and index, each file's identity, calls, bytes,
    // page-cache events and read-ahead, async depth; the DL log's file indexes;
    // pagecache_logged) and the process pass (everything else: processes,
    // streams, the access judge, the log, and each file's OpStats, paths,
    // read hits and misses, runs of reads and access counts). A file's
    // fields are written by one pass only (PageCacheStats: the events' fields
    // by the file pass, add_read's by the process pass). Each sees
    // every record in order, so running the file pass on another thread,
    // ahead, gives the very state one thread would (ReportBuilder::
    // prepare_records); the walk is otherwise two cache-missing halves on one
    // core. has_cache: the record carries the page-cache fields (not a
    // IOLENS_SYSCALL_REC_V1_SIZE record).
    PreparedCall file_syscall(const iolens_syscall_rec& r, bool has_cache);
    void process_syscall(const iolens_syscall_rec& r, bool has_cache, const PreparedCall& prepared);
    void file_pagecache(const iolens_pagecache_rec& r);
    void process_pagecache(const iolens_pagecache_rec& r);
    // Page-cache events the process pass adds to log.page_cache, counted by
    // the file pass (a read-ahead span's log_index).
    size_t pagecache_logged = 0;
    // The file pass's output of records prepared ahead, one per RECORDS
    // span, taken in order by add_records; spares for reuse.
    std::mutex prepared_m;
    std::deque<std::vector<PreparedCall>> prepared;
    std::vector<std::vector<PreparedCall>> prepared_spare;
    bool prepare_ahead = false;
    // The files in the DL log whose OpStats are kept live
    // (FileAccum::account_live), and whether they were dropped (drop_live):
    // the process pass's.
    std::vector<FileAccum*> live_files;
    bool live_dropped = false;
    void drop_live() {
        for (FileAccum* f : live_files) f->ops.reset();
        live_files = std::vector<FileAccum*>();
        live_dropped = true;
        malloc_trim(0);
    }
    void note_read(Stream& st, FileAccum& f, const iolens_syscall_rec& r);
    void keep_read_span(FileAccum& f, const ReadSpan& span);
    // Judges the read-ahead pages of every file and charges what was never
    // read to `out` (processes, totals), to the listed files' `listed_ra`
    // (by their place in `listed`) and to `unused_events`.
    void judge_readahead(Report& out, const std::vector<const FileAccum*>& listed,
                         std::vector<PageCacheStats>& listed_ra,
                         std::vector<std::pair<size_t, uint64_t>>& unused_events) const;
    void on_block(const iolens_block_rec& r);
    void on_file(const iolens_file_rec& r, const char* path);  // the file pass
    void on_fork(const iolens_proc_rec& r);
    void on_exec(const iolens_exec_rec& r, const char* args);
    void on_exit(const iolens_proc_rec& r);
    void on_marker(const iolens_marker_rec& r);
    void on_offcpu(const iolens_offcpu_rec& r);
    void on_unknown(uint16_t) { skipped++; }  // a record type from a newer kernel side
    // release: free the streams and files once read (ReportBuilder::take);
    // otherwise nothing is changed.
    Report finish(bool release);
};

ReportBuilder::State::PreparedCall ReportBuilder::State::file_syscall(const iolens_syscall_rec& r,
                                                                      bool has_cache) {
    (void)has_cache;  // the process pass splits the reads
    PreparedCall out;
    // A class added by a newer kernel side (skipped), or a call without a file.
    if (r.op >= kOpCount || !(r.flags & IOLENS_SC_HAS_FILE)) return out;
    FileAccum& f = file(r.dev, r.ino);
    out.file = &f;
    out.pid = r.pid;
    out.stream_file = stream_file(&f);
    if (options.dl_attribution) {
        // The DL log's file count is the file pass's: the process pass never reads it.
        if (f.dl_index == FileAccum::kNoDlIndex) f.dl_index = log.add_file();
        out.file_index = f.dl_index;
    }
    out.deferred = f.deferred();
    f.calls++;
    // What a read or write moved (a CallEvent's bytes with kHasSize and no kError).
    if ((r.op == IOLENS_OP_READ || r.op == IOLENS_OP_WRITE) && r.ret >= 0)
        f.rw_bytes += static_cast<uint64_t>(r.ret);
    const int path = (r.flags & IOLENS_SC_PATH_MASK) >> IOLENS_SC_PATH_SHIFT;
    if (path == IOLENS_PATH_AIO || path == IOLENS_PATH_IO_URING) {
        auto& async = f.file_side_made().async;
        if (!async) async = std::make_unique<AsyncDepth>();
        async->add(r.start_ns, r.duration_ns);
    }
    return out;
}

void ReportBuilder::State::process_syscall(const iolens_syscall_rec& r, bool has_cache,
                                           const PreparedCall& prepared) {
    if (r.op >= kOpCount) {  // a class added by a newer kernel side
        skipped++;
        return;
    }
    ProcessStats& p = process(r.pid);
    // This call's (process, file) stream, looked up once (below, up to three uses).
    Stream* st = nullptr;
    // Without the fields a read's hits are unknown, not "all of it".
    std::optional<CacheRead> cache_read;
    if (has_cache && is_counted_read(r)) {
        st = &stream(r.pid, prepared.stream_file);
        cache_read = split_read(r, st->prefetched);
        page_cache.add_read(*cache_read);
        p.page_cache.add_read(*cache_read);
    }
    const CallEvent e = make_call_event(r, cache_read, prepared.file_index);
    account(p.ops[r.op], e);
    // Plain syscalls are what the other paths leave (PathTable::complete).
    const int path = (r.flags & IOLENS_SC_PATH_MASK) >> IOLENS_SC_PATH_SHIFT;
    PathOps* path_ops = nullptr;
    if (path != IOLENS_PATH_SYSCALL) {
        path_ops = &p.paths.by[path][r.op];
        account_path(*path_ops, e, r.flags & IOLENS_SC_OFFLOADED);
    }
    if (options.dl_attribution) {
        log.calls.push_back(e);
        log.saw(r.start_ns, r.start_ns + r.duration_ns);
    }
    if (path == IOLENS_PATH_AIO || path == IOLENS_PATH_IO_URING)
        async_depth[r.pid].add(r.start_ns, r.duration_ns);
    FileAccum* f = prepared.file;
    if (!f) return;
    // The file's fields this pass writes (FileAccum: the file pass writes others).
    // A call on a file past the first max_files (deferred): the job has more
    // files than can be listed, so the early files' OpStats too are made from the log.
    // (Known from the prepared call: the process pass reads nothing of the
    // entry's first cache line, which the file pass writes for every call.)
    if (prepared.deferred && !live_dropped) drop_live();
    if (!prepared.deferred) {
        if (!live_dropped || prepared.file_index == CallEvent::kNoFile) {
            // (Only a file in the log can be dropped.)
            if (!f->ops && prepared.file_index != CallEvent::kNoFile) live_files.push_back(f);
            f->account_live(r.op, e);
        }
    }
    if (path_ops) {
        auto& paths = f->process_side_made().paths;
        if (!paths) paths = std::make_unique<PathTable>();
        account_path(paths->by[path][r.op], e, r.flags & IOLENS_SC_OFFLOADED);
    }
    if (cache_read) f->page_cache.add_read(*cache_read);
    if (cache_read && r.offset != IOLENS_NO_OFFSET && r.ret > 0) note_read(*st, *f, r);  // st: has_file

    // Sequential: the access starts where this process's previous access to
    // the file ended (or at 0 for its first). Per process, because DataLoader
    // workers reading disjoint shards of one file would otherwise look random.
    if ((r.op != IOLENS_OP_READ && r.op != IOLENS_OP_WRITE) || r.offset == IOLENS_NO_OFFSET || r.ret <= 0)
        return;
    // In start order: a process's threads may share the file (access_pattern.h).
    if (!st) st = &stream(r.pid, prepared.stream_file);
    access.add(st->access, f->access, r.tid, r.start_ns, r.offset, r.offset + static_cast<uint64_t>(r.ret));
}

void ReportBuilder::State::note_read(Stream& st, FileAccum& f, const iolens_syscall_rec& r) {
    const uint64_t lo = r.offset / 4096, hi = (r.offset + static_cast<uint64_t>(r.ret) + 4095) / 4096;
    const uint64_t end_ns = r.start_ns + r.duration_ns;
    if (extend_read_span(st.reads, lo, hi, r.start_ns, end_ns)) return;
    if (st.reads.hi != 0) keep_read_span(f, st.reads);
    st.reads = {lo, hi, r.start_ns, end_ns};
}

void ReportBuilder::State::keep_read_span(FileAccum& f, const ReadSpan& span) {
    if (read_spans >= options.max_read_spans) {
        f.reads_clipped = true;
        return;
    }
    f.process_side_made().reads.push_back(span);
    read_spans++;
}

static bool known_pagecache_kind(const iolens_pagecache_rec& r) {
    return r.kind == IOLENS_PC_FAULT_IN || r.kind == IOLENS_PC_EVICT || r.kind == IOLENS_PC_RESIDENT;
}

void ReportBuilder::State::file_pagecache(const iolens_pagecache_rec& r) {
    if (!known_pagecache_kind(r)) return;  // newer kernel side: skipped
    if (r.ino != 0) file(r.dev, r.ino).page_cache.add_pagecache(r);
    if ((r.flags & IOLENS_PCF_READAHEAD) && r.ino != 0 && r.kind != IOLENS_PC_FAULT_IN) {
        ReadaheadSpan span{r.index, r.index + r.bytes / 4096,    r.first_ns, r.ts_ns, r.ra_bytes,
                           r.pid,   r.kind == IOLENS_PC_RESIDENT};
        if (options.dl_attribution) span.log_index = pagecache_logged;
        file(r.dev, r.ino).file_side_made().readahead.push_back(span);
    }
    // As process_pagecache adds to log.page_cache.
    if (r.kind != IOLENS_PC_RESIDENT && options.dl_attribution) pagecache_logged++;
}

void ReportBuilder::State::process_pagecache(const iolens_pagecache_rec& r) {
    if (!known_pagecache_kind(r)) {
        skipped++;  // newer kernel side
        return;
    }
    page_cache.add_pagecache(r);
    if (r.kind == IOLENS_PC_RESIDENT) return;  // nothing happened to the cache
    uint32_t charged = 0;
    if (r.pid != 0) {
        if (r.kind == IOLENS_PC_FAULT_IN) {
            process(r.pid).page_cache.add_pagecache(r);
            charged = r.pid;
        } else if (auto it = processes.find(r.pid); it != processes.end()) {
            // An eviction names the process that first opened the file, which
            // may never have been seen doing I/O: charge only a known one rather
            // than invent an empty process for it.
            it->second.page_cache.add_pagecache(r);
            charged = r.pid;
        }
    }
    if (options.dl_attribution) {
        log.page_cache.push_back({r.ts_ns, r.bytes, charged, r.kind, r.flags,
                                  static_cast<uint16_t>(std::min<uint32_t>(r.majors, UINT16_MAX))});
        log.saw(r.ts_ns, r.ts_ns);
    }
}

void ReportBuilder::State::on_block(const iolens_block_rec& r) {
    block.add(r);
    // Submission-time attribution done by the kernel side: pid 0 is traffic
    // of untracked processes, the kernel (writeback), or unknown.
    if (r.pid != 0)
        process(r.pid).block.add(r);
    else
        block_unattributed.add(r);
    if (options.dl_attribution) log.blocks.push_back({r.issue_ns, r.pid, r.bytes, r.op});
}

void ReportBuilder::State::on_marker(const iolens_marker_rec& r) {
    const size_t n = std::min<size_t>(r.text_len, IOLENS_MARKER_BYTES);
    log.markers.push_back({r.ts_ns, r.pid, r.tid, std::string(r.text, n)});
    log.saw(r.ts_ns, r.ts_ns);
}

void ReportBuilder::State::on_offcpu(const iolens_offcpu_rec& r) {
    if (!options.dl_attribution || r.end_ns <= r.start_ns) return;
    log.offcpu.push_back({r.start_ns, r.end_ns, r.pid, r.tid});
}

void ReportBuilder::State::on_file(const iolens_file_rec& r, const char* path) {
    FileAccum& f = file(r.dev, r.ino);
    f.path = path_from_components(path, r.path_len, r.flags & IOLENS_FILE_TRUNCATED);
    f.size = r.size;
}

void ReportBuilder::State::on_fork(const iolens_proc_rec& r) {
    auto it = processes.find(r.pid);
    if (it != processes.end() && it->second.info.end_ns != 0) {
        // The pid was reused after the earlier process exited: keep both.
        retired.push_back(std::move(it->second));
        if (auto d = async_depth.find(r.pid); d != async_depth.end()) {
            retired.back().async = d->second.stats();
            async_depth.erase(d);
        }
        it->second = ProcessStats{};
        it->second.info.pid = r.pid;
    }
    ProcessInfo& p = process(r.pid).info;
    p.ppid = r.ppid;
    p.comm = comm_string(r.comm, sizeof r.comm);
    p.start_ns = r.ts_ns;
    // A forked child runs the parent's program until it execs.
    if (auto parent = processes.find(r.ppid); parent != processes.end() && p.cmdline.empty())
        p.cmdline = parent->second.info.cmdline;
}

void ReportBuilder::State::on_exec(const iolens_exec_rec& r, const char* args) {
    ProcessInfo& p = process(r.pid).info;
    p.comm = comm_string(r.comm, sizeof r.comm);
    p.cmdline = split_args(args, r.args_len);
    if (p.start_ns == 0) p.start_ns = r.ts_ns;
    if (p.ppid == 0) p.ppid = r.ppid;
}

void ReportBuilder::State::on_exit(const iolens_proc_rec& r) {
    ProcessInfo& p = process(r.pid).info;
    p.end_ns = r.ts_ns;
    p.exit_code = r.exit_code;
    if (p.comm.empty()) p.comm = comm_string(r.comm, sizeof r.comm);
    if (p.ppid == 0) p.ppid = r.ppid;
}

ReportBuilder::ReportBuilder(BuilderOptions options) : state_(std::make_unique<State>()) {
    state_->options = options;
}

ReportBuilder::~ReportBuilder() = default;

void ReportBuilder::set_capture(const CaptureInfo& capture) { state_->capture = capture; }

void ReportBuilder::add_process(const ProcessInfo& info) {
    // Keep whatever was counted already; the caller knows the process better.
    state_->process(info.pid).info = info;
}

void ReportBuilder::add_process_env(uint32_t pid, const std::map<std::string, std::string>& vars) {
    state_->env[pid] = vars;
}

uint64_t ReportBuilder::records_seen() const { return state_->records; }
uint64_t ReportBuilder::records_skipped() const { return state_->skipped; }

namespace {

// The walk_records handlers of the two passes (State::file_syscall).
struct FilePass {
    ReportBuilder::State& s;
    std::vector<ReportBuilder::State::PreparedCall>& out;
    void on_syscall(const iolens_syscall_rec& r, bool has_cache) {
        const ReportBuilder::State::PreparedCall c = s.file_syscall(r, has_cache);
        if (!out.empty() && out.back().same(c) && out.back().count < UINT32_MAX)
            out.back().count++;
        else
            out.push_back(c);
    }
    void on_pagecache(const iolens_pagecache_rec& r) { s.file_pagecache(r); }
    void on_file(const iolens_file_rec& r, const char* path) { s.on_file(r, path); }
    void on_block(const iolens_block_rec&) {}
    void on_fork(const iolens_proc_rec&) {}
    void on_exec(const iolens_exec_rec&, const char*) {}
    void on_exit(const iolens_proc_rec&) {}
    void on_marker(const iolens_marker_rec&) {}
    void on_offcpu(const iolens_offcpu_rec&) {}
    void on_unknown(uint16_t) {}
};

struct ProcessPass {
    ReportBuilder::State& s;
    const std::vector<ReportBuilder::State::PreparedCall>& prepared;
    size_t next = 0;    // prepared[next] stands for the next call ...
    uint32_t used = 0;  // ... once `used` of its calls are done
    static constexpr size_t kAhead = 6;
    void on_syscall(const iolens_syscall_rec& r, bool has_cache) {
        // The file pass walked the same bytes and stops where this walk does.
        static const ReportBuilder::State::PreparedCall none;
        // The file entries a few calls on: their second cache line (the
        // fields this pass writes) is far in memory; the address is known.
        // Their streams too, in two steps: the index slot twice as far
        // ahead, then (that slot in cache by now) the stream it points at.
        // Hints only: a stream made in between is not prefetched, nothing else
        // changes.
        if (used == 0) {
            if (next + 2 * kAhead < prepared.size())
                if (const auto& c = prepared[next + 2 * kAhead]; c.file)
                    s.stream_at.prefetch_slot(s.stream_key_of(c.pid, c.stream_file));
            if (next + kAhead < prepared.size())
                if (const auto& c = prepared[next + kAhead]; c.file) {
                    __builtin_prefetch(reinterpret_cast<const char*>(c.file) + 64, 1);
                    const uint64_t k = s.stream_key_of(c.pid, c.stream_file);
                    if (!s.recent_streams.find(k))
                        if (const uint32_t i = s.stream_at.guess(k); i < s.streams.size())
                            __builtin_prefetch(&s.streams[i], 1);
                }
        }
        const auto& c = next < prepared.size() ? prepared[next] : none;
        s.process_syscall(r, has_cache, c);
        if (++used >= c.count) {
            next++;
            used = 0;
        }
    }
    void on_pagecache(const iolens_pagecache_rec& r) { s.process_pagecache(r); }
    void on_file(const iolens_file_rec&, const char*) {}
    void on_block(const iolens_block_rec& r) { s.on_block(r); }
    void on_fork(const iolens_proc_rec& r) { s.on_fork(r); }
    void on_exec(const iolens_exec_rec& r, const char* args) { s.on_exec(r, args); }
    void on_exit(const iolens_proc_rec& r) { s.on_exit(r); }
    void on_marker(const iolens_marker_rec& r) { s.on_marker(r); }
    void on_offcpu(const iolens_offcpu_rec& r) { s.on_offcpu(r); }
    void on_unknown(uint16_t type) { s.on_unknown(type); }
};

// Both passes record by record, on one thread.
struct BothPasses {
    ReportBuilder::State& s;
    void on_syscall(const iolens_syscall_rec& r, bool has_cache) {
        s.process_syscall(r, has_cache, s.file_syscall(r, has_cache));
    }
    void on_pagecache(const iolens_pagecache_rec& r) {
        s.file_pagecache(r);
        s.process_pagecache(r);
    }
    void on_file(const iolens_file_rec& r, const char* path) { s.on_file(r, path); }
    void on_block(const iolens_block_rec& r) { s.on_block(r); }
    void on_fork(const iolens_proc_rec& r) { s.on_fork(r); }
    void on_exec(const iolens_exec_rec& r, const char* args) { s.on_exec(r, args); }
    void on_exit(const iolens_proc_rec& r) { s.on_exit(r); }
    void on_marker(const iolens_marker_rec& r) { s.on_marker(r); }
    void on_offcpu(const iolens_offcpu_rec& r) { s.on_offcpu(r); }
    void on_unknown(uint16_t type) { s.on_unknown(type); }
};

}  // namespace

void ReportBuilder::prepare_ahead() { state_->prepare_ahead = true; }

void ReportBuilder::prepare_records(std::span<const std::byte> records) {
    State& s = *state_;
    std::vector<State::PreparedCall> out;
    {
        std::lock_guard lk(s.prepared_m);
        if (!s.prepared_spare.empty()) {
            out = std::move(s.prepared_spare.back());
            s.prepared_spare.pop_back();
        }
    }
    out.clear();
    FilePass pass{s, out};
    uint64_t walked = 0;
    (void)walk_records(records, pass, walked);  // the process pass reports damage
    std::lock_guard lk(s.prepared_m);
    s.prepared.push_back(std::move(out));
}

Result<void> ReportBuilder::add_records(std::span<const std::byte> records) {
    State& s = *state_;
    if (!s.prepare_ahead) {
        BothPasses both{s};
        return walk_records(records, both, s.records);
    }
    std::vector<State::PreparedCall> prepared;
    {
        std::lock_guard lk(s.prepared_m);
        if (!s.prepared.empty()) {
            prepared = std::move(s.prepared.front());
            s.prepared.pop_front();
        }
    }
    ProcessPass pass{s, prepared};
    auto r = walk_records(records, pass, s.records);
    std::lock_guard lk(s.prepared_m);
    if (s.prepared_spare.size() < 8) s.prepared_spare.push_back(std::move(prepared));
    return r;
}

namespace {

void charge_readahead(PageCacheStats& s, const ReadaheadSpan& span, uint64_t unread) {
    (span.resident ? s.readahead_unread_bytes : s.readahead_unused_bytes) += unread;
}

// A listed file's share of the judgement, added to its table.
void charge_readahead_judged(PageCacheStats& s, const PageCacheStats& judged) {
    s.readahead_unread_bytes += judged.readahead_unread_bytes;
    s.readahead_unused_bytes += judged.readahead_unused_bytes;
}

}  // namespace

void ReportBuilder::State::judge_readahead(Report& out, const std::vector<const FileAccum*>& listed,
                                           std::vector<PageCacheStats>& listed_ra,
                                           std::vector<std::pair<size_t, uint64_t>>& unused_events) const {
    // The runs of reads still going on when the capture ended, of the files
    // judged (by index in files).
    const auto judged = [](const FileAccum& f) { return f.has_readahead() && !f.reads_clipped; };
    std::unordered_map<uint32_t, std::vector<ReadSpan>> open;
    for (size_t si = 0; si < streams.size(); ++si) {
        const Stream& st = streams[si];
        if (st.reads.hi == 0) continue;
        const uint32_t fi = st.file() != kNoFileStream ? st.file() : find_file(file_key(0, 0));
        if (fi != util::FlatIndex<Key, KeyHash>::kNone && judged(files[fi])) open[fi].push_back(st.reads);
    }
    std::unordered_map<uint32_t, ProcessStats*> by_pid;
    for (auto& p : out.processes) by_pid[p.info.pid] = &p;  // the latest of a reused pid
    std::unordered_map<const FileAccum*, size_t> slot_of;
    for (size_t i = 0; i < listed.size(); ++i) slot_of[listed[i]] = i;
    listed_ra.assign(listed.size(), PageCacheStats{});
    for (uint32_t fi = 0; fi < files.size(); ++fi) {
        const FileAccum& f = files[fi];
        if (!judged(f)) continue;
        std::vector<ReadSpan> reads;
        if (f.process_side) reads = f.process_side->reads;
        if (auto it = open.find(fi); it != open.end())
            reads.insert(reads.end(), it->second.begin(), it->second.end());
        const std::vector<ReadaheadSpan>& readahead = f.file_side->readahead;
        const std::vector<uint64_t> unread = model::judge_readahead(reads, readahead);
        auto lf = slot_of.find(&f);
        for (size_t i = 0; i < unread.size(); ++i) {
            const ReadaheadSpan& span = readahead[i];
            if (unread[i] == 0) continue;
            charge_readahead(out.page_cache, span, unread[i]);
            if (lf != slot_of.end()) charge_readahead(listed_ra[lf->second], span, unread[i]);
            if (auto p = by_pid.find(span.pid); p != by_pid.end())
                charge_readahead(p->second->page_cache, span, unread[i]);
            if (!span.resident && span.log_index != SIZE_MAX)
                unused_events.emplace_back(span.log_index, unread[i]);
        }
    }
    std::sort(unused_events.begin(), unused_events.end());
}

size_t builder_threads(size_t asked) {
    if (asked) return asked;
    return std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 4);
}

Report ReportBuilder::finish() const { return state_->finish(false); }
Report ReportBuilder::take() { return state_->finish(true); }

Report ReportBuilder::State::finish(bool release) {
    State& s = *this;
    Report r;
    r.capture = s.capture;
    r.page_cache = s.page_cache;
    r.block_unattributed = s.block_unattributed;
    r.block_devices = s.block.devices();
    // Named here, at the end: the END chunk that carries the names is applied
    // after the records.
    for (auto& d : r.block_devices) d.name = device_name(s.capture, d.dev);

    r.processes.reserve(s.processes.size() + s.retired.size());
    for (const auto& p : s.retired) r.processes.push_back(p);
    for (const auto& [pid, p] : s.processes) {
        r.processes.push_back(p);
        if (auto d = s.async_depth.find(pid); d != s.async_depth.end())
            r.processes.back().async = d->second.stats();
    }
    std::sort(r.processes.begin(), r.processes.end(), [](const auto& a, const auto& b) {
        if (a.info.pid != b.info.pid) return a.info.pid < b.info.pid;
        return a.info.start_ns < b.info.start_ns;
    });
    // Every call is charged to exactly one process: the totals are their sum
    // (sums and histograms add up exactly), one histogram update per call saved.
    for (auto& p : r.processes) {
        for (int op = 0; op < kOpCount; ++op) r.totals[op].merge(p.ops[op]);
        r.paths.merge(p.paths);
        p.paths.complete(p.ops);
    }
    r.paths.complete(r.totals);

    // Only files some call or page-cache event touched: a FILE record alone
    // (an open whose syscall record was lost) says nothing about I/O, but a
    // file mapped before the capture shows only through its faults. Rank
    // pointers, copy the top max_files only: there may be millions of files.
    std::vector<const FileAccum*> ranked;
    ranked.reserve(s.files.size());
    for (size_t i = 0; i < s.files.size(); ++i)
        if (s.files[i].touched()) ranked.push_back(&s.files[i]);
    // Bytes descending, then path; files never named (empty path) after the
    // named ones, by device and inode, so the order is deterministic.
    const auto order = [](const FileAccum* a, const FileAccum* b) {
        const uint64_t ba = a->rw_bytes, bb = b->rw_bytes;
        if (ba != bb) return ba > bb;
        if (a->path.empty() != b->path.empty()) return b->path.empty();
        if (a->path.view() != b->path.view()) return a->path.view() < b->path.view();
        if (a->dev != b->dev) return a->dev < b->dev;
        return a->ino < b->ino;
    };
    const size_t keep = std::min(ranked.size(), s.options.max_files);
    std::partial_sort(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(keep), ranked.end(),
                      order);
    r.files_total = ranked.size();
    r.files_omitted = ranked.size() - keep;
    ranked.resize(keep);
    // Accesses still in a stream's window (only streams several threads
    // used have one), by file.
    std::unordered_map<const AccessCounts*, AccessCounts> pending;
    for (const auto& [counts, c] : s.access.pending()) pending[counts] += c;
    // The readahead judgement needs the streams (their runs of reads still
    // going on); the listed files' tables (a few KiB each) are made after
    // it, once the streams are freed, so the two are never held at once.
    std::vector<std::pair<size_t, uint64_t>> unused_events;
    std::vector<PageCacheStats> listed_ra;
    s.judge_readahead(r, ranked, listed_ra, unused_events);
    if (release) {
        s.recent_streams.clear();
        s.streams = util::Chunked<Stream>();
        s.stream_at = util::FlatIndex<uint64_t, util::IntHash>();
    }
    std::optional<DlInputs> in;
    if (s.options.dl_attribution) {
        in.emplace(DlInputs{s.log, s.env, s.options.rank_env_override, {}, s.options.reorder_calls});
        in->page_cache_unused = std::move(unused_events);
        in->timeline_bins = s.options.timeline_bins;
        in->threads = s.options.threads;
        // Each file of the log is the one file entry whose dl_index names it:
        // the entries in order (not a look-up of each log file's key, which
        // misses the cache twice). The DL attribution needs only whether it
        // is software (a byte, where the paths took ~80 bytes a file).
        in->software_file.assign(s.log.files(), 0);
        for (size_t i = 0; i < s.files.size(); ++i) {
            const FileAccum& f = s.files[i];
            if (f.dl_index < in->software_file.size())
                in->software_file[f.dl_index] = software_path(f.path.view());
        }
    }
    // The listed files' tables (a few KiB each, made and zeroed: ~35 MB for
    // 10,000), then the files freed. The DL attribution reads neither (only
    // the log and software_file, which nothing writes now): with threads,
    // this runs beside it. slot_of: the listed file of each log file index
    // whose calls are accounted from the log (FileAccum::deferred).
    std::vector<uint32_t> slot_of;
    const auto build_listed = [&s, &r, &ranked, &pending, &listed_ra, &slot_of, keep, release] {
        r.files.reserve(keep);
        for (size_t i = 0; i < keep; ++i) {
            const FileAccum& f = *ranked[i];
            const auto it = pending.find(&f.access);
            f.stats(r.files.emplace_back(), it == pending.end() ? AccessCounts{} : it->second);
            charge_readahead_judged(r.files.back().page_cache, listed_ra[i]);
            if (r.files.back().path.empty()) r.files.back().path = unnamed_file(f.dev, f.ino);
            if (f.deferred() || (s.live_dropped && f.in_log())) {
                if (slot_of.empty()) slot_of.assign(s.log.files(), UINT32_MAX);
                slot_of[f.dl_index] = static_cast<uint32_t>(i);
            }
        }
        if (release) {
            s.recent_files.clear();
            s.files = util::Chunked<FileAccum>();
            s.file_at = util::FlatIndex<Key, KeyHash>();
        }
    };
    // The listed files' calls in the DL log, accounted in log (record) order
    // as they would have been while reading. It reads only the log and
    // writes only the listed files' ops, which nothing below touches.
    const auto listed_pass = [&s, &r, &slot_of] {
        if (slot_of.empty()) return;
        CallLog::Cursor cur(s.log.calls);
        for (CallEvent e; cur.next(e);) {
            const uint32_t fi = e.file();
            if (fi < slot_of.size() && slot_of[fi] != UINT32_MAX)
                account(r.files[slot_of[fi]].ops[e.op()], e);
        }
    };
    // Declared after what it uses: destroyed first, it joins the thread
    // even if the DL attribution throws.
    std::future<void> listed;
    if (builder_threads(s.options.threads) > 1) {
        listed = std::async(std::launch::async, [&] {
            build_listed();
            listed_pass();
        });
    } else {
        build_listed();
        listed = std::async(std::launch::deferred, listed_pass);
    }
    if (in) attribute_dl(r, *in);
    if (listed.valid()) listed.get();
    for (auto& f : r.files) f.paths.complete(f.ops);
    return r;
}

}  // namespace iolens::model
