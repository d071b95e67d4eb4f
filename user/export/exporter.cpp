#include "export/exporter.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "export/syscall_names.h"
#include "export/trace.h"
#include "model/attribution.h"
#include "model/call_site_builder.h"
#include "model/record_text.h"
#include "model/record_walk.h"
#include "model/replay.h"
#include "recording/recording.h"
#include "util/output_file.h"

namespace iolens::exports {

const char* format_name(Format f) {
    switch (f) {
        case Format::Perfetto:
            return "perfetto";
        case Format::Chrome:
            return "chrome";
        case Format::DfTracer:
            return "dftracer";
    }
    return "?";
}

std::string default_output(Format f) {
    switch (f) {
        case Format::Perfetto:
            return "iolens.pftrace";
        case Format::Chrome:
            return "iolens.json";
        case Format::DfTracer:
            return "iolens.pfw.gz";
    }
    return "iolens.trace";
}

namespace {

// (dev, ino) for a file; (pid << 32 | dev, ino) for one process's stream
// of reads of one file.
struct StreamKey {
    uint64_t a, b;
    bool operator==(const StreamKey&) const = default;
};
struct StreamKeyHash {
    size_t operator()(const StreamKey& k) const {
        uint64_t h = k.b ^ (k.a * 0x9e3779b97f4a7c15ull);
        h ^= h >> 32;
        return static_cast<size_t>(h * 0xd6e8feb86659fd93ull);
    }
};

struct FileName {
    uint32_t dev;
    uint64_t ino;
    std::string path;
    uint64_t hash;
};

// The paths of the files, from the FILE records (first read); the last one
// seen for a (dev, ino) wins, as in the model.
struct PathCollector {
    std::unordered_map<StreamKey, FileName, StreamKeyHash>& names;
    void on_file(const iolens_file_rec& r, const char* path) {
        auto& n = names[StreamKey{r.dev, r.ino}];
        n.dev = r.dev;
        n.ino = r.ino;
        n.path = model::path_from_components(path, r.path_len, r.flags & IOLENS_FILE_TRUNCATED);
    }
    void on_syscall(const iolens_syscall_rec&, bool) {}
    void on_pagecache(const iolens_pagecache_rec&) {}
    void on_block(const iolens_block_rec&) {}
    void on_fork(const iolens_proc_rec&) {}
    void on_exit(const iolens_proc_rec&) {}
    void on_exec(const iolens_exec_rec&, const char*) {}
    void on_marker(const iolens_marker_rec&) {}
    void on_offcpu(const iolens_offcpu_rec&) {}
    void on_unknown(uint16_t) {}
};

// Counters in time buckets: per rank, the page-cache hit ratio (the model's
// definition: PageCacheStats::hit_ratio); per block device, the deepest
// queue at an issue and the bytes issued.
struct Counters {
    uint64_t period;
    uint64_t origin;
    std::map<std::pair<long, uint64_t>, model::PageCacheStats> cache;  // (rank, bucket)
    struct Block {
        uint64_t depth = 0;
        uint64_t bytes = 0;
    };
    std::map<std::pair<uint32_t, uint64_t>, Block> block;  // (dev, bucket)
    uint64_t bucket(uint64_t t) const { return t > origin ? (t - origin) / period : 0; }
    uint64_t at(uint64_t b) const { return origin + b * period; }

    // A series with a sample per bucket that had data, and a 0 after each
    // run of them, so that a viewer's step line falls back between bursts.
    template <typename Map, typename Key, typename Value>
    static void series(const Map& m, const Key& key, const Value& value, const Counters& c,
                       std::vector<CounterSeries>& out, CounterSeries proto) {
        std::optional<uint64_t> last;
        for (auto it = m.lower_bound({key, 0}); it != m.end() && it->first.first == key; ++it) {
            const auto v = value(it->second);
            if (!v) continue;
            if (last && *last + 1 < it->first.second) proto.samples.push_back({c.at(*last + 1), 0});
            proto.samples.push_back({c.at(it->first.second), *v});
            last = it->first.second;
        }
        if (last) proto.samples.push_back({c.at(*last + 1), 0});
        if (!proto.samples.empty()) out.push_back(std::move(proto));
    }

    std::vector<CounterSeries> finish(size_t ranks) const {
        std::vector<CounterSeries> out;
        for (size_t i = 0; i < ranks; ++i) {
            CounterSeries s;
            s.name = "page cache hit %";
            s.rank = static_cast<long>(i);
            series(
                cache, static_cast<long>(i),
                [](const model::PageCacheStats& p) -> std::optional<double> {
                    auto r = p.hit_ratio();
                    return r ? std::optional<double>(*r * 100.0) : std::nullopt;
                },
                *this, out, s);
        }
        std::vector<uint32_t> devs;
        for (const auto& [k, v] : block)
            if (devs.empty() || devs.back() != k.first) devs.push_back(k.first);
        const double per_s = 1e9 / static_cast<double>(period);
        for (uint32_t dev : devs) {
            CounterSeries s;
            s.dev = dev;
            s.name = "queue depth";
            series(
                block, dev,
                [](const Block& b) -> std::optional<double> { return static_cast<double>(b.depth); }, *this,
                out, s);
            s.name = "MiB/s";
            series(
                block, dev,
                [per_s](const Block& b) -> std::optional<double> {
                    return static_cast<double>(b.bytes) * per_s / (1024.0 * 1024.0);
                },
                *this, out, s);
        }
        return out;
    }
};

// The second read: every record, with the model's attribution, to the writer.
struct Streamer {
    const TraceContext& ctx;
    const std::unordered_map<StreamKey, FileName, StreamKeyHash>& names;
    TraceWriter& w;
    Counters& counters;
    model::CallSiteBuilder* sites;  // record --stacks, else null
    // Per (pid, dev, ino) stream: bytes read ahead not yet returned, for
    // the page-cache split of each read (model::split_read, as the model).
    std::unordered_map<StreamKey, uint64_t, StreamKeyHash> prefetched;
    std::unordered_map<StreamKey, FileName, StreamKeyHash> unnamed;
    std::unordered_map<const std::string*, uint64_t> site_hashes;

    const FileName& name_of(uint32_t dev, uint64_t ino) {
        const StreamKey k{dev, ino};
        if (auto it = names.find(k); it != names.end()) return it->second;
        auto [it, inserted] = unnamed.try_emplace(k);
        if (inserted) it->second = {dev, ino, model::unnamed_file(dev, ino), 0};
        return it->second;
    }

    void on_syscall(const iolens_syscall_rec& r, bool has_cache) {
        if (r.op >= model::kOpCount) return;  // a class from a newer kernel side (the model skips it)
        const bool has_file = r.flags & IOLENS_SC_HAS_FILE;
        const int path = (r.flags & IOLENS_SC_PATH_MASK) >> IOLENS_SC_PATH_SHIFT;
        CallView c{r, syscall_name(r.syscall_nr, r.op), dftracer_name(r.syscall_nr, r.op, path), path};
        if (has_cache && model::is_counted_read(r)) {
            const StreamKey key = has_file ? StreamKey{uint64_t{r.pid} << 32 | r.dev, r.ino}
                                           : StreamKey{uint64_t{r.pid} << 32, 0};
            c.cache = model::split_read(r, prefetched[key]);
        }
        if (has_file) {
            const FileName& n = name_of(r.dev, r.ino);
            c.file = &n.path;
            c.file_hash = n.hash;
        }
        c.rank = ctx.attribution.rank_index(r.pid);
        c.epoch = ctx.attribution.epoch_index(c.rank, r.start_ns);
        if (sites && (c.call_site = sites->charge(r))) {
            auto [it, fresh] = site_hashes.try_emplace(c.call_site, 0);
            if (fresh) it->second = fnv1a64(*c.call_site);
            c.call_site_hash = it->second;
        }
        if (c.cache && c.rank >= 0) counters.cache[{c.rank, counters.bucket(r.start_ns)}].add_read(*c.cache);
        w.call(c);
    }
    void on_stack(const iolens_stack_rec& r, const uint64_t* data) {
        if (sites) sites->on_stack(r, data);
    }
    void on_pagecache(const iolens_pagecache_rec& r) {
        if (r.kind != IOLENS_PC_FAULT_IN || r.pid == 0) return;
        const long rank = ctx.attribution.rank_index(r.pid);
        if (rank >= 0) counters.cache[{rank, counters.bucket(r.ts_ns)}].add_pagecache(r);
    }
    void on_block(const iolens_block_rec& r) {
        auto& b = counters.block[{r.dev, counters.bucket(r.issue_ns)}];
        b.depth = std::max<uint64_t>(b.depth, r.depth);
        b.bytes += r.bytes;
    }
    void on_offcpu(const iolens_offcpu_rec& r) {
        if (r.end_ns > r.start_ns) w.offcpu(r, ctx.attribution.rank_index(r.pid));
    }
    void on_marker(const iolens_marker_rec& r) {
        w.marker(r, std::string_view(r.text, std::min<size_t>(r.text_len, IOLENS_MARKER_BYTES)),
                 ctx.attribution.rank_index(r.pid));
    }
    void on_file(const iolens_file_rec&, const char*) {}
    void on_fork(const iolens_proc_rec&) {}
    void on_exit(const iolens_proc_rec&) {}
    void on_exec(const iolens_exec_rec&, const char*) {}
    void on_unknown(uint16_t) {}
};

bool ends_with(const std::string& s, std::string_view tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

Result<ExportOutcome> export_recording(const std::string& input, const ExportOptions& options) {
    if (same_file(options.output, input))
        return make_error("the output " + options.output + " and the recording " + input +
                          " are the same file: give the export a name of its own");
    if (auto r = check_output_path(options.output, options.force, "the export"); !r) return r.error();

    // First read: the model, and the file paths.
    std::unordered_map<StreamKey, FileName, StreamKeyHash> names;
    PathCollector paths{names};
    uint64_t walked = 0;
    model::CallSiteBuilder sites;  // record --stacks: each call's call site, as a slice argument
    auto report = model::load_recording(input, options.builder, [&](const recording::Chunk& chunk) {
        if (chunk.type == recording::ChunkType::Records)
            (void)model::walk_records(chunk.payload, paths, walked);
        sites.on_chunk(chunk);
    });
    if (!report) return report.error();
    const bool with_sites = sites.finish().has_value();
    sites.restart();
    for (auto& [k, n] : names) n.hash = fnv1a64(n.path);

    const model::EventAttribution attribution(*report);
    TraceContext ctx{*report, attribution, report->capture.start_mono_ns, report->capture.start_unix_ns};
    if (ctx.unix_start == 0) ctx.unix_start = ctx.mono_start;  // no realtime anchor: the event clock

    auto file = OutputFile::create(options.output, options.force, "the export");
    if (!file) return file.error();
    ExportOutcome outcome;
    outcome.gzip = ends_with(options.output, ".gz");
    outcome.partial = report->capture.partial;
    outcome.partial_reason = report->capture.partial_reason;
    OutStream out(file->fd(), outcome.gzip);
    std::unique_ptr<TraceWriter> writer;
    switch (options.format) {
        case Format::Chrome:
            writer = make_chrome_writer(ctx, out);
            break;
        case Format::DfTracer:
            writer = make_dftracer_writer(ctx, out);
            break;
        case Format::Perfetto:
            writer = make_perfetto_writer(ctx, out);
            break;
    }
    writer->begin();

    // Second read: the events.
    Counters counters{std::max<uint64_t>(options.counter_period_ns, 1), ctx.mono_start, {}, {}};
    Streamer streamer{ctx, names, *writer, counters, with_sites ? &sites : nullptr, {}, {}, {}};
    uint64_t streamed = 0;
    auto read = recording::read_file_streaming(input, [&](const recording::Chunk& chunk) {
        if (chunk.type == recording::ChunkType::Records)
            (void)model::walk_records(chunk.payload, streamer, streamed);
        return true;
    });
    if (!read) return read.error();  // the file changed under us
    writer->counters(counters.finish(report->ranks.size()));
    writer->end();
    if (auto r = out.finish(); !r) return make_error("writing " + options.output + ": " + r.error().message);
    if (auto r = file->commit(); !r) return r.error();
    if (auto r = file->close(); !r) return r.error();
    outcome.events = writer->events();
    outcome.bytes = out.bytes_out();
    outcome.raw_bytes = out.bytes_in();
    return outcome;
}

}  // namespace iolens::exports
