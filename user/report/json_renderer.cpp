#include "report/json_renderer.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <functional>
#include <future>
#include <string_view>

#include "recording/capture_json.h"
#include "report/findings_renderer.h"
#include "report/json_sections.h"
#include "util/json_text.h"

namespace iolens::report {

using nlohmann::json;

namespace detail {

json hist_to_json(const model::Histogram& h) {
    json buckets = json::array();
    for (const auto& b : h.buckets()) buckets.push_back({{"lo", b.lo}, {"hi", b.hi}, {"count", b.count}});
    return {
        {"buckets", std::move(buckets)}, {"count", h.count()},        {"sum", h.sum()}, {"min", h.min()},
        {"p50", h.percentile(0.50)},     {"p99", h.percentile(0.99)}, {"max", h.max()},
    };
}

Live::Live(const recording::CaptureInfo& c)
    : page_cache(recording::probe_live(c, recording::kProbePageCache)),
      blocking(recording::probe_live(c, recording::kProbeBlocking)),
      block(recording::probe_live(c, recording::kProbeBlock)) {}
json or_null(bool live, uint64_t v) { return live ? json(v) : json(nullptr); }

json op_stats_to_json(const model::OpStats& s, const Live& live) {
    return {
        {"calls", s.calls},
        {"errors", s.errors},
        {"bytes", s.bytes},
        {"requested_bytes", s.requested_bytes},
        {"time_ns", s.time_ns},
        {"blocked_ns", or_null(live.blocking, s.blocked_ns)},
        {"latency_ns", hist_to_json(s.latency_ns)},
        {"size_bytes", hist_to_json(s.size_bytes)},
    };
}

// Every class is present, calls 0 included, so consumers need no existence checks.
json op_table_to_json(const model::OpTable& ops, const Live& live) {
    json out = json::object();
    for (int op = 0; op < model::kOpCount; ++op) out[model::op_name(op)] = op_stats_to_json(ops[op], live);
    return out;
}

// By path, the classes that path carried ({"copy": {"read": {...}}}): only
// paths and classes with calls.
json path_table_to_json(const model::PathTable& t) {
    json out = json::object();
    for (int path = 0; path < model::kPathCount; ++path) {
        json classes = json::object();
        for (int op = 0; op < model::kOpCount; ++op) {
            const auto& o = t.by[path][op];
            if (!o.calls) continue;
            classes[model::op_name(op)] = {{"calls", o.calls},
                                           {"errors", o.errors},
                                           {"bytes", o.bytes},
                                           {"requested_bytes", o.requested_bytes},
                                           {"time_ns", o.time_ns}};
            if (path == IOLENS_PATH_IO_URING) classes[model::op_name(op)]["offloaded"] = o.offloaded;
        }
        if (!classes.empty()) out[model::path_name(path)] = std::move(classes);
    }
    return out;
}

json async_to_json(const model::AsyncDepthStats& s) {
    const auto mean = s.mean_depth();
    return {{"requests", s.requests},   {"request_ns", s.request_ns},
            {"busy_ns", s.busy_ns},     {"mean_depth", mean ? json(*mean) : json(nullptr)},
            {"max_depth", s.max_depth}, {"clipped", s.clipped}};
}

json page_cache_to_json(const model::PageCacheStats& s, const Live& live) {
    if (!live.page_cache) return nullptr;
    const auto ratio = s.hit_ratio();
    return {
        {"hit_ratio", ratio ? json(*ratio) : json(nullptr)},
        {"hit_bytes", s.hit_bytes},
        {"miss_bytes", s.miss_bytes},
        {"readahead_bytes", s.readahead_bytes},
        {"readahead_unused_bytes", s.readahead_unused_bytes},
        {"readahead_unread_at_end_bytes", s.readahead_unread_bytes},
        {"fault_bytes", s.fault_bytes},
        {"major_faults", s.major_faults},
        {"evicted_bytes", s.evicted_bytes},
        {"evicted_by_job_bytes", s.evicted_by_job_bytes},
        {"direct_bytes", s.direct_bytes},
        {"blocked_ns", or_null(live.blocking, s.blocked_ns)},
    };
}

json process_block_to_json(const model::ProcessBlock& b, const Live& live) {
    if (!live.block) return nullptr;
    return {{"read_bytes", b.read_bytes}, {"write_bytes", b.write_bytes}, {"requests", b.requests}};
}

}  // namespace detail

namespace {

using namespace detail;

json block_stats_to_json(const model::BlockStats& s) {
    return {
        {"requests", s.requests},
        {"bytes", s.bytes},
        {"latency_ns", hist_to_json(s.latency_ns)},
        {"queue_ns", hist_to_json(s.queue_ns)},
        {"size_bytes", hist_to_json(s.size_bytes)},
        {"sequential", s.sequential},
        {"random", s.random},
        {"max_depth", s.max_depth},
    };
}

json block_to_json(const model::Report& r, const Live& live) {
    if (!live.block) return nullptr;
    json devices = json::array();
    for (const auto& d : r.block_devices) {
        devices.push_back({
            {"name", text_json(d.name)},
            {"dev", d.dev},
            {"major", recording::dev_major(d.dev)},
            {"minor", recording::dev_minor(d.dev)},
            {"read", block_stats_to_json(d.read)},
            {"write", block_stats_to_json(d.write)},
            {"other_requests", d.other_requests},
        });
    }
    return {{"devices", std::move(devices)},
            {"unattributed", process_block_to_json(r.block_unattributed, live)}};
}

// Start-up, software and data (model::CallSplit); null without the ranks.
json split_to_json(const model::Report& r, const Live& live) {
    const auto& s = r.split;
    if (!s.known) return nullptr;
    return {
        {"startup_end_ns", s.startup_end_ns ? json(s.startup_end_ns) : json(nullptr)},
        {"startup_ns", s.startup_ns},
        {"startup_time_ns", s.startup_time_ns()},
        {"startup", op_table_to_json(s.startup, live)},
        {"data", op_table_to_json(s.data, live)},
        {"flush", op_stats_to_json(s.flush, live)},
        {"data_files", s.data_files},
        {"software_files", s.software_files},
    };
}

json nodes_to_json(const model::Report& r) {
    const Live live(r.capture);
    json out = json::array();
    for (const auto& n : r.nodes)
        out.push_back({
            {"host", text_json(n.host)},
            {"recording", text_json(n.recording)},
            {"job_id", text_json(n.job_id)},
            {"kernel_release", text_json(n.kernel_release)},
            {"start_unix_ns", n.start_unix_ns},
            {"duration_ns", n.duration_ns},
            {"clock_offset_ns", n.clock_offset_ns},
            {"anchor_uncertainty_ns", n.anchor_uncertainty_ns},
            {"events", n.events},
            {"lost_events", n.lost_events},
            {"partial", n.partial},
            {"ranks", n.ranks},
            {"totals", op_table_to_json(n.totals, live)},
            {"page_cache", page_cache_to_json(n.page_cache, live)},
            {"io_time_ns", n.io_time_ns},
            {"critical_io_ns", n.critical_io_ns},
            {"device_read_bytes", n.device_read_bytes},
        });
    return out;
}

json file_to_json(const model::FileStats& f, const Live& live) {
    json fj{
        {"path", text_json(f.path)},
        {"dev", f.dev},
        {"dev_major", recording::dev_major(f.dev)},
        {"dev_minor", recording::dev_minor(f.dev)},
        {"ino", f.ino},
        {"size", f.size},
        {"ops", op_table_to_json(f.ops, live)},
        {"sequential", f.sequential},
        {"random", f.random},
        {"software", f.software},
        {"page_cache", page_cache_to_json(f.page_cache, live)},
    };
    if (f.paths.any_other_path()) fj["paths"] = path_table_to_json(f.paths);
    if (f.async.requests) fj["async"] = async_to_json(f.async);
    return fj;
}

// A file's object written straight as text: the very text nlohmann's
// dump(2) makes of file_to_json (keys sorted byte-wise, two-space indents,
// integers as they are), `level` indents deep (its first line is not
// indented: it follows the key or the array's indent). Why: a 200,000-file
// job lists 10,000 files, each with 9 classes of 2 histograms; building each
// as a tree of json values and dumping it took ~1.1 s of that report's
// ~5 s with --json (malloc and free of every node). The small and rare parts
// (the path, the page cache, paths and async) are still dumped by nlohmann.
// render_json_test checks the text against the tree's dump.
class FileText {
public:
    FileText(std::string& out, const Live& live) : out_(out), live_(live) {
        for (int op = 0; op < model::kOpCount; ++op) ops_[op] = op;
        std::sort(ops_.begin(), ops_.end(), [](int a, int b) {
            return std::string_view(model::op_name(a)) < std::string_view(model::op_name(b));
        });
    }
    void file(const model::FileStats& f, int level) {
        const int in = level + 1;
        out_ += "{\n";
        if (f.async.requests) field(in, "async"), dump(async_to_json(f.async), in), more();
        field(in, "dev"), num(f.dev), more();
        field(in, "dev_major"), num(recording::dev_major(f.dev)), more();
        field(in, "dev_minor"), num(recording::dev_minor(f.dev)), more();
        field(in, "ino"), num(f.ino), more();
        field(in, "ops"), op_table(f.ops, in), more();
        field(in, "page_cache"), dump(page_cache_to_json(f.page_cache, live_), in), more();
        field(in, "path"), dump(text_json(f.path), in), more();
        if (f.paths.any_other_path()) field(in, "paths"), dump(path_table_to_json(f.paths), in), more();
        field(in, "random"), num(f.random), more();
        field(in, "sequential"), num(f.sequential), more();
        field(in, "size"), num(f.size), more();
        field(in, "software"), out_ += f.software ? "true" : "false";
        end(level, '}');
    }

private:
    void pad(int level) { out_.append(static_cast<size_t>(level) * 2, ' '); }
    void field(int level, std::string_view k) {
        pad(level);
        out_ += '"';
        out_ += k;
        out_ += "\": ";
    }
    void more() { out_ += ",\n"; }
    void end(int level, char close) {
        out_ += '\n';
        pad(level);
        out_ += close;
    }
    void num(uint64_t v) {
        char b[24];
        const auto r = std::to_chars(b, b + sizeof b, v);
        out_.append(b, r.ptr);
    }
    // nlohmann's own dump, each line after the first `level` indents deeper.
    void dump(const json& j, int level) {
        const std::string one = j.dump(2, ' ', false, json::error_handler_t::replace);
        for (size_t from = 0;;) {
            const size_t nl = one.find('\n', from);
            if (nl == std::string::npos) {
                out_.append(one, from);
                return;
            }
            out_.append(one, from, nl + 1 - from);
            pad(level);
            from = nl + 1;
        }
    }
    void op_table(const model::OpTable& ops, int level) {
        out_ += "{\n";
        for (size_t i = 0; i < ops_.size(); ++i) {
            if (i) more();
            field(level + 1, model::op_name(ops_[i]));
            op_stats(ops[ops_[i]], level + 1);
        }
        end(level, '}');
    }
    void op_stats(const model::OpStats& s, int level) {
        const int in = level + 1;
        out_ += "{\n";
        field(in, "blocked_ns");
        if (live_.blocking)
            num(s.blocked_ns);
        else
            out_ += "null";
        more();
        field(in, "bytes"), num(s.bytes), more();
        field(in, "calls"), num(s.calls), more();
        field(in, "errors"), num(s.errors), more();
        field(in, "latency_ns"), hist(s.latency_ns, in), more();
        field(in, "requested_bytes"), num(s.requested_bytes), more();
        field(in, "size_bytes"), hist(s.size_bytes, in), more();
        field(in, "time_ns"), num(s.time_ns);
        end(level, '}');
    }
    void hist(const model::Histogram& h, int level) {
        const int in = level + 1;
        out_ += "{\n";
        field(in, "buckets");
        const auto buckets = h.buckets();
        if (buckets.empty()) {
            out_ += "[]";
        } else {
            out_ += "[\n";
            for (size_t i = 0; i < buckets.size(); ++i) {
                if (i) more();
                pad(in + 1);
                out_ += "{\n";
                field(in + 2, "count"), num(buckets[i].count), more();
                field(in + 2, "hi"), num(buckets[i].hi), more();
                field(in + 2, "lo"), num(buckets[i].lo);
                end(in + 1, '}');
            }
            end(in, ']');
        }
        more();
        field(in, "count"), num(h.count()), more();
        field(in, "max"), num(h.max()), more();
        field(in, "min"), num(h.min()), more();
        field(in, "p50"), num(h.percentile(0.50)), more();
        field(in, "p99"), num(h.percentile(0.99)), more();
        field(in, "sum"), num(h.sum());
        end(level, '}');
    }

    std::string& out_;
    const Live& live_;
    std::array<int, model::kOpCount> ops_{};  // the classes by name, as a json object orders its keys
};

}  // namespace

// record --stacks: the calls by call site (docs/call-sites.md).
json call_sites_to_json(const model::CallSites& cs) {
    json sites = json::array();
    for (const auto& s : cs.sites) {
        json frames = json::array();
        for (const auto& f : s.frames)
            frames.push_back({{"function", f.function.empty() ? json(nullptr) : text_json(f.function)},
                              {"module", f.module.empty() ? json(nullptr) : text_json(f.module)},
                              {"offset", f.offset}});
        sites.push_back({{"frames", std::move(frames)},
                         {"calls", s.calls},
                         {"stacks", s.stacks},
                         {"read_bytes", s.read_bytes},
                         {"write_bytes", s.write_bytes},
                         {"time_ns", s.time_ns},
                         {"cache_in_bytes", s.cache_miss_bytes},
                         {"files", s.files},
                         {"top_file", s.top_file.empty() ? json(nullptr) : text_json(s.top_file)},
                         {"top_file_bytes", s.top_file_bytes}});
    }
    json libraries = json::array();
    for (const auto& l : cs.libraries)
        libraries.push_back({{"module", l.module.empty() ? json(nullptr) : text_json(l.module)},
                             {"calls", l.calls},
                             {"read_bytes", l.read_bytes},
                             {"write_bytes", l.write_bytes},
                             {"time_ns", l.time_ns},
                             {"cache_in_bytes", l.cache_miss_bytes},
                             {"sites", l.sites}});
    return {{"spec", cs.spec},
            {"stacks", cs.stacks},
            {"calls", cs.calls},
            {"calls_without", cs.calls_without},
            {"libraries", std::move(libraries)},
            {"sites", std::move(sites)},
            {"notes", cs.notes}};
}

json report_to_json(const model::Report& r) { return report_to_json(r, true); }

json report_to_json(const model::Report& r, bool with_files) {
    const Live live(r.capture);
    json processes = json::array();
    for (const auto& p : r.processes) {
        json j = recording::process_to_json(p.info);
        j["ops"] = op_table_to_json(p.ops, live);
        if (p.paths.any_other_path()) j["paths"] = path_table_to_json(p.paths);
        if (p.async.requests) j["async"] = async_to_json(p.async);
        j["page_cache"] = page_cache_to_json(p.page_cache, live);
        j["block"] = process_block_to_json(p.block, live);
        if (r.split.known) j["flush"] = {{"calls", p.flush.calls}, {"time_ns", p.flush.time_ns}};
        if (!p.node.empty()) j["node"] = p.node;
        processes.push_back(std::move(j));
    }
    json files = json::array();
    if (with_files)
        for (const auto& f : r.files) files.push_back(file_to_json(f, live));
    json j = {
        {"schema", kReportSchema},
        {"version", kReportVersion},
        {"capture", recording::capture_to_json(r.capture)},
        {"totals", op_table_to_json(r.totals, live)},
        {"paths", path_table_to_json(r.paths)},
        {"page_cache", page_cache_to_json(r.page_cache, live)},
        {"block", block_to_json(r, live)},
        {"processes", std::move(processes)},
        {"files", std::move(files)},
        {"files_total", r.files_total},
        {"files_omitted", r.files_omitted},
        {"findings", findings_to_json(r.findings)},
        {"ranks", ranks_to_json(r, live)},
        {"epochs", epochs_to_json(r, live)},
        {"epochs_note", r.epochs_note.empty() ? json(nullptr) : json(r.epochs_note)},
        {"rank_imbalance", rank_imbalance_to_json(r)},
        {"split", split_to_json(r, live)},
        {"limits", r.limits},
    };
    if (!r.nodes.empty()) j["nodes"] = nodes_to_json(r);  // a report of many nodes' recordings
    if (r.call_sites) j["call_sites"] = call_sites_to_json(*r.call_sites);  // record --stacks only
    return j;
}

// The document without its files, then each file written on its own
// (FileText) into the place of the empty "files" array: the same text as
// dumping the whole document (keys sorted, two-space indents), without
// holding every file's tree at once (10,000 files with their histograms took
// ~120 MiB as a tree). The files' text is made in two halves, the second on
// a thread of its own, and handed to `put` in two pieces: the first half is
// written while the second is made (10,000 files are ~75 MB of text).
Result<void> write_report_json(const model::Report& r,
                               const std::function<Result<void>(std::string_view)>& put) {
    const auto dump = [](const json& j) { return j.dump(2, ' ', false, json::error_handler_t::replace); };
    std::string doc = dump(report_to_json(r, false)) + "\n";
    if (r.files.empty()) return put(doc);
    // Top-level keys are the only lines indented by exactly two spaces.
    static constexpr std::string_view kEmpty = "\n  \"files\": [],\n";
    const size_t at = doc.find(kEmpty);
    if (at == std::string::npos) return put(dump(report_to_json(r, true)) + "\n");  // not expected
    const Live live(r.capture);
    // Files [lo, hi) appended to out, each after its separator.
    const auto files = [&r, &live](size_t lo, size_t hi, std::string& out) {
        FileText text(out, live);
        for (size_t i = lo; i < hi; ++i) {
            const size_t before = out.size();
            out += i ? ",\n    " : "\n    ";
            text.file(r.files[i], 2);
            // Room for all of them, as big as the first (a guess: fewer copies as it grows).
            if (i == lo) out.reserve(out.size() + (out.size() - before) * 5 / 4 * (hi - lo));
        }
    };
    const size_t n = r.files.size(), half = n / 2;
    std::string second;
    // Declared after what it writes: destroyed first, it joins the thread
    // even if the first half throws. Without a thread to be had, it is made
    // here at get() (libstdc++ falls back to deferred).
    std::future<void> made =
        std::async(std::launch::async | std::launch::deferred, [&] { files(half, n, second); });
    std::string first;
    first.append(doc, 0, at);
    first += "\n  \"files\": [";
    files(0, half, first);
    auto wrote = put(first);
    first = std::string();
    made.get();
    if (!wrote) return wrote;
    second += "\n  ],\n";
    second.append(doc, at + kEmpty.size());
    return put(second);
}

std::string report_to_json_text(const model::Report& r) {
    std::string out;
    (void)write_report_json(r, [&out](std::string_view piece) -> Result<void> {
        out += piece;
        return {};
    });
    return out;
}

}  // namespace iolens::report
