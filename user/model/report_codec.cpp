#include "model/report_codec.h"

#include <cmath>

#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "recording/capture_json.h"

// std::optional as null or [value] (nlohmann 3.11 has no serializer of its
// own): boxed, so that a present 0 is not taken for a default and dropped.
namespace nlohmann {
template <typename T>
struct adl_serializer<std::optional<T>> {
    static void to_json(json& j, const std::optional<T>& v) {
        if (v)
            j = json::array({*v});
        else
            j = nullptr;
    }
    static void from_json(const json& j, std::optional<T>& v) {
        if (j.is_null()) {
            v.reset();
            return;
        }
        if (!j.is_array() || j.size() != 1) throw std::runtime_error("an optional figure is not [value]");
        v = j[0].get<T>();
    }
};
}  // namespace nlohmann

namespace iolens::recording {

// Through the recording's own JSON form of them (recording/capture_json.h).
void to_json(nlohmann::json& j, const CaptureInfo& c) { j = capture_to_json(c); }
void from_json(const nlohmann::json& j, CaptureInfo& c) {
    auto r = capture_from_json(j);
    if (!r) throw std::runtime_error("capture: " + r.error().message);
    c = std::move(*r);
}
void to_json(nlohmann::json& j, const ProcessInfo& p) { j = process_to_json(p); }
void from_json(const nlohmann::json& j, ProcessInfo& p) {
    auto r = process_from_json(j);
    if (!r) throw std::runtime_error("process: " + r.error().message);
    p = std::move(*r);
}

}  // namespace iolens::recording

namespace iolens::model {

void to_json(nlohmann::json& j, const Histogram& h) {
    if (h.count() == 0) {
        j = nullptr;  // most of a report's histograms: 1 byte each
        return;
    }
    const auto s = h.state();
    auto fine = nlohmann::json::array();
    for (const auto& [f, c] : s.fine) {
        fine.push_back(f);
        fine.push_back(c);
    }
    j = nlohmann::json::array({s.count, s.sum, s.min, s.max, std::move(fine)});
}
void from_json(const nlohmann::json& j, Histogram& h) {
    if (j.is_null()) {
        h = Histogram{};
        return;
    }
    if (!j.is_array() || j.size() != 5 || !j[4].is_array() || j[4].size() % 2)
        throw std::runtime_error("a histogram is not [count, sum, min, max, [index, count, ...]]");
    Histogram::State s;
    s.count = j[0].get<uint64_t>();
    s.sum = j[1].get<uint64_t>();
    s.min = j[2].get<uint64_t>();
    s.max = j[3].get<uint64_t>();
    const auto& fine = j[4];
    if (fine.size() / 2 > Histogram::kFine) throw std::runtime_error("a histogram has too many buckets");
    s.fine.reserve(fine.size() / 2);
    for (size_t i = 0; i < fine.size(); i += 2)
        s.fine.emplace_back(fine[i].get<uint32_t>(), fine[i + 1].get<uint64_t>());
    auto out = Histogram::from_state(std::move(s));
    if (!out) throw std::runtime_error("a histogram's counts do not add up");
    h = std::move(*out);
}

NLOHMANN_JSON_SERIALIZE_ENUM(EpochSource,
                             {{EpochSource::Marker, "marker"}, {EpochSource::Inferred, "inferred"}})

// Every field of each struct, by its C++ name; a key missing on reading keeps
// the field's default (a partial of an older writer).
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(OpStats, calls, errors, bytes, requested_bytes, time_ns,
                                                blocked_ns, latency_ns, size_bytes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PathOps, calls, errors, bytes, requested_bytes, time_ns,
                                                offloaded)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PathTable, by)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(PageCacheStats, hit_bytes, miss_bytes, readahead_bytes,
                                                readahead_unused_bytes, readahead_unread_bytes, fault_bytes,
                                                major_faults, evicted_bytes, blocked_ns, direct_bytes,
                                                evicted_by_job_bytes)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ProcessBlock, read_bytes, write_bytes, requests)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(AsyncDepthStats, requests, request_ns, busy_ns, max_depth,
                                                clipped)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(BlockStats, requests, bytes, latency_ns, queue_ns, size_bytes,
                                                sequential, random, max_depth)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(BlockDevice, dev, name, read, write, other_requests)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ProcessStats, info, ops, paths, page_cache, block, async,
                                                flush, node)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(FileStats, path, dev, ino, size, ops, paths, sequential,
                                                random, page_cache, async, software)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(ThreadIo, pid, tid, io_ns)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RankStats, rank, node, local_rank, world_size, rank_source,
                                                pids, ops, page_cache, block, wall_ns, io_time_ns,
                                                critical_io_ns, threads, root_pids, startup_ns,
                                                startup_critical_io_ns, data_reads)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(EpochRankStats, rank, start_ns, end_ns, ops, page_cache,
                                                block, wall_ns, io_time_ns, critical_io_ns)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(EpochStats::RankSums, wall_ns, io_time_ns, critical_io_ns)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(EpochStats, index, source, start_ns, end_ns, marker_number,
                                                steps, ops, page_cache, block, ranks, rank_sums)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Spread, min, max, mean, max_over_mean)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RankImbalance, read_bytes, io_time_ns, straggler_rank,
                                                straggler_io_time_ns)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(CallSplit, known, startup_end_ns, startup_ns, startup, data,
                                                flush, data_files, software_files)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RankTimeline, rank, read_bytes, io_ns, critical_ns)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Timeline, start_ns, bin_ns, bins, ranks)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(NodeSummary, host, recording, job_id, kernel_release,
                                                start_unix_ns, duration_ns, clock_offset_ns,
                                                anchor_uncertainty_ns, events, lost_events, partial, ranks,
                                                totals, page_cache, io_time_ns, critical_io_ns,
                                                device_read_bytes)

namespace {

// The CBOR parse, with the nesting bounded: nlohmann's reader recurses once
// per level, so a crafted file of nested one-element arrays would take the
// stack (100,000 bytes did). A partial nests 8 levels at most.
constexpr size_t kMaxDepth = 32;

class BoundedSax {
public:
    explicit BoundedSax(nlohmann::json& out) : dom_(out, true) {}
    bool null() { return dom_.null(); }
    bool boolean(bool v) { return dom_.boolean(v); }
    bool number_integer(nlohmann::json::number_integer_t v) { return dom_.number_integer(v); }
    bool number_unsigned(nlohmann::json::number_unsigned_t v) { return dom_.number_unsigned(v); }
    // A partial's floats are ratios and means, never negative or huge; a
    // damaged or crafted one could put a float where an integer goes, and
    // converting one out of the integer's range is undefined behaviour
    // (found by partial_fuzzer): such values become 0.
    bool number_float(nlohmann::json::number_float_t v, const std::string& s) {
        if (!std::isfinite(v) || v < 0 || v > 9.0e18) v = 0;
        return dom_.number_float(v, s);
    }
    bool string(std::string& v) { return dom_.string(v); }
    bool binary(nlohmann::json::binary_t& v) { return dom_.binary(v); }
    bool start_object(std::size_t n) { return ++depth_ <= kMaxDepth && dom_.start_object(n); }
    bool key(std::string& k) { return dom_.key(k); }
    bool end_object() { return --depth_, dom_.end_object(); }
    bool start_array(std::size_t n) { return ++depth_ <= kMaxDepth && dom_.start_array(n); }
    bool end_array() { return --depth_, dom_.end_array(); }
    template <typename Exception>
    bool parse_error(std::size_t pos, const std::string& tok, const Exception& e) {
        return dom_.parse_error(pos, tok, e);
    }
    bool too_deep() const { return depth_ > kMaxDepth; }

private:
    nlohmann::detail::json_sax_dom_parser<nlohmann::json> dom_;
    size_t depth_ = 0;
};

// What the decoded report would take, at least, from the DOM's element
// counts: a crafted partial of empty objects ({} is one byte, a FileStats
// 3.5 KB) must not take the machine's memory.
constexpr uint64_t kMaxDecodedBytes = uint64_t{4} << 30;

uint64_t decoded_bytes(const nlohmann::json& j) {
    const auto count = [&](const char* key) -> uint64_t {
        const auto it = j.find(key);
        return it != j.end() && it->is_array() ? it->size() : 0;
    };
    uint64_t n = count("files") * sizeof(FileStats) + count("processes") * sizeof(ProcessStats) +
                 count("ranks") * sizeof(RankStats) + count("nodes") * sizeof(NodeSummary) +
                 count("block_devices") * sizeof(BlockDevice) + count("epochs") * sizeof(EpochStats);
    if (const auto it = j.find("epochs"); it != j.end() && it->is_array())
        for (const auto& e : *it)
            if (e.is_object())
                if (const auto er = e.find("ranks"); er != e.end() && er->is_array())
                    n += er->size() * sizeof(EpochRankStats);
    return n;
}

// What the renderers take for granted of a timeline (the HTML report's):
// a row per rank of the report at most, each of bins figures.
Result<void> check_timeline(const Report& r) {
    if (!r.timeline) return {};
    const auto& t = *r.timeline;
    if (t.ranks.size() > r.ranks.size()) return make_error("the timeline has more ranks than the report");
    if (t.bins > (size_t{1} << 20) || (t.bins && t.bin_ns == 0) || (t.bins && t.bin_ns > UINT64_MAX / t.bins))
        return make_error("the timeline's bins are not a time range");
    for (const auto& k : t.ranks)
        if (k.read_bytes.size() != t.bins || k.io_ns.size() != t.bins || k.critical_ns.size() != t.bins)
            return make_error("a timeline row has not as many figures as bins");
    return {};
}

// Drops, recursively, every object member that holds its type's default (0,
// false, "", null, [], {}): reading fills in the default for a missing key,
// and most of a report's figures are 0 (a file's write, stat and mmap rows,
// every path but plain syscalls). Array elements stay (their place is their
// meaning), emptied to {} when they are all defaults. Not for the capture
// and process objects: their JSON forms have defaults of their own.
void strip_defaults(nlohmann::json& j) {
    if (j.is_array()) {
        for (auto& e : j) strip_defaults(e);
        return;
    }
    if (!j.is_object()) return;
    for (auto it = j.begin(); it != j.end();) {
        if (it.key() == "capture" || it.key() == "info") {
            ++it;
            continue;
        }
        strip_defaults(it.value());
        const auto& v = it.value();
        const bool dflt = v.is_null() || (v.is_boolean() && !v.get<bool>()) ||
                          (v.is_number_unsigned() && v.get<uint64_t>() == 0) ||
                          (v.is_number_integer() && v.get<int64_t>() == 0) ||
                          (v.is_number_float() && v.get<double>() == 0.0) || (v.is_string() && v.empty()) ||
                          ((v.is_array() || v.is_object()) && v.empty());
        if (dflt)
            it = j.erase(it);
        else
            ++it;
    }
}

// The report without its findings (they are run again after a merge).
nlohmann::json report_json(const Report& r) {
    return {{"capture", r.capture},
            {"nodes", r.nodes},
            {"totals", r.totals},
            {"paths", r.paths},
            {"processes", r.processes},
            {"files", r.files},
            {"files_total", r.files_total},
            {"files_omitted", r.files_omitted},
            {"page_cache", r.page_cache},
            {"block_devices", r.block_devices},
            {"block_unattributed", r.block_unattributed},
            {"ranks", r.ranks},
            {"epochs", r.epochs},
            {"rank_imbalance", r.rank_imbalance},
            {"split", r.split},
            {"limits", r.limits},
            {"epochs_note", r.epochs_note},
            {"timeline", r.timeline}};
}

template <typename T>
void get(const nlohmann::json& j, const char* key, T& out) {
    if (const auto it = j.find(key); it != j.end()) it->get_to(out);
}

Report report_of(const nlohmann::json& j) {
    if (!j.is_object()) throw std::runtime_error("the report is not an object");
    Report r;
    get(j, "capture", r.capture);
    get(j, "nodes", r.nodes);
    get(j, "totals", r.totals);
    get(j, "paths", r.paths);
    get(j, "processes", r.processes);
    get(j, "files", r.files);
    get(j, "files_total", r.files_total);
    get(j, "files_omitted", r.files_omitted);
    get(j, "page_cache", r.page_cache);
    get(j, "block_devices", r.block_devices);
    get(j, "block_unattributed", r.block_unattributed);
    get(j, "ranks", r.ranks);
    get(j, "epochs", r.epochs);
    get(j, "rank_imbalance", r.rank_imbalance);
    get(j, "split", r.split);
    get(j, "limits", r.limits);
    get(j, "epochs_note", r.epochs_note);
    get(j, "timeline", r.timeline);
    return r;
}

}  // namespace

std::string encode_partial(const Report& report) {
    nlohmann::json body = report_json(report);
    strip_defaults(body);
    const nlohmann::json j = {{"version", kPartialVersion}, {"report", std::move(body)}};
    std::string out(kPartialMagic);
    nlohmann::json::to_cbor(j, out);
    return out;
}

Result<Report> decode_partial(std::string_view bytes) {
    if (bytes.substr(0, kPartialMagic.size()) != kPartialMagic)
        return make_error("not an iolens report partial (no IOLPART1 header)");
    bytes.remove_prefix(kPartialMagic.size());
    try {
        nlohmann::json j;
        BoundedSax sax(j);
        const bool ok =
            nlohmann::json::sax_parse(bytes.begin(), bytes.end(), &sax, nlohmann::json::input_format_t::cbor);
        if (sax.too_deep()) return make_error("a damaged report partial: nested deeper than a report is");
        if (!ok) return make_error("a damaged report partial: not one CBOR object");
        if (!j.is_object() || !j.contains("version") || !j["version"].is_number_integer())
            return make_error("a report partial without a version");
        if (j["version"].get<int64_t>() != kPartialVersion)
            return make_error("a report partial of version " + std::to_string(j["version"].get<int64_t>()) +
                              ": this iolens reads version " + std::to_string(kPartialVersion) +
                              " (make it again with this iolens: iolens report --partial)");
        if (!j.contains("report") || !j["report"].is_object())
            return make_error("a report partial without a report");
        if (decoded_bytes(j["report"]) > kMaxDecodedBytes)
            return make_error(
                "a report partial whose tables would take more than 4 GiB: not one iolens wrote");
        Report r = report_of(j["report"]);
        if (auto c = check_timeline(r); !c)
            return make_error("a damaged report partial: " + c.error().message);
        return r;
    } catch (const std::exception& e) {
        return make_error(std::string("a damaged report partial: ") + e.what());
    }
}

bool is_partial_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char head[kPartialMagic.size()] = {};
    return in.read(head, sizeof head) && std::string_view(head, sizeof head) == kPartialMagic;
}

Result<Report> load_partial(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return make_error(path + ": cannot open");
    std::ostringstream buf;
    buf << in.rdbuf();
    auto r = decode_partial(buf.str());
    if (!r) return make_error(path + ": " + r.error().message);
    return r;
}

}  // namespace iolens::model
