#include "analysis/diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "analysis/summarize.h"
#include "report/json_renderer.h"
#include "util/errno_text.h"
#include "util/units.h"

namespace iolens::analysis {

using nlohmann::json;

namespace {

// --- reading figures off a JSON report -------------------------------------

std::optional<double> number(const json& j, std::initializer_list<const char*> path) {
    const json* at = &j;
    for (const char* key : path) {
        if (!at->is_object() || !at->contains(key)) return std::nullopt;
        at = &(*at)[key];
    }
    if (!at->is_number()) return std::nullopt;
    return at->get<double>();
}

const json& member(const json& j, const char* key) {
    static const json none;
    return j.is_object() && j.contains(key) ? j[key] : none;
}

std::string text(const json& j, const char* key) {
    const json& v = member(j, key);
    return v.is_string() ? v.get<std::string>() : "";
}

// The command as one line ("torchrun train.py"); argv entries may be
// {bytes_hex, text} objects (non-UTF-8 arguments).
std::string command_line(const json& report) {
    std::string s;
    for (const auto& arg : member(member(report, "capture"), "command")) {
        const std::string word = arg.is_string() ? arg.get<std::string>() : text(arg, "text");
        s += (s.empty() ? "" : " ") + word;
    }
    return s;
}

const json* find_by(const json& list, const char* key, const json& value) {
    if (!list.is_array()) return nullptr;
    for (const auto& item : list)
        if (item.is_object() && item.contains(key) && item[key] == value) return &item;
    return nullptr;
}

// --- noise -------------------------------------------------------------------

// The epochs whose times compare: without the first when there are 3 or more
// (epoch 1 reads a cold cache and pays the start-up).
std::vector<const json*> steady_epochs(const json& report) {
    std::vector<const json*> out;
    for (const auto& e : member(report, "epochs")) out.push_back(&e);
    if (out.size() >= 3) out.erase(out.begin());
    return out;
}

// (max - min) / mean of the epochs' durations; empty with fewer than 2.
std::optional<double> epoch_time_spread(const json& report) {
    std::vector<double> d;
    for (const json* e : steady_epochs(report))
        if (auto v = number(*e, {"duration_ns"}); v && *v > 0) d.push_back(*v);
    if (d.size() < 2) return std::nullopt;
    const auto [lo, hi] = std::minmax_element(d.begin(), d.end());
    double mean = 0;
    for (double v : d) mean += v;
    mean /= static_cast<double>(d.size());
    return (*hi - *lo) / mean;
}

// max - min of one rank's stall share over the epochs; empty with fewer than 2.
std::optional<double> stall_share_spread(const json& report, const json& rank) {
    std::vector<double> s;
    for (const json* e : steady_epochs(report))
        if (const json* r = find_by(member(*e, "ranks"), "rank", rank))
            if (auto v = number(*r, {"critical_io_share"})) s.push_back(*v);
    if (s.size() < 2) return std::nullopt;
    const auto [lo, hi] = std::minmax_element(s.begin(), s.end());
    return *hi - *lo;
}

constexpr double kDefaultShareNoise = 0.02;  // 2 points of a share without epochs to measure
constexpr double kMinNoise = 0.01;

// --- rows -------------------------------------------------------------------

enum class Kind {
    Time,   // relative change, judged against the epoch-time noise
    Share,  // absolute points, judged against a share noise
    Count,  // exact: the same or not
};

class RowMaker {
public:
    RowMaker(ReportDiff& d, double share_noise) : d_(d), share_noise_(share_noise) {}

    // share_noise: for Kind::Share, the points a share may move by chance
    // (default: the RowMaker's). A Time also needs to move by more than
    // kTimeFloorNs (a sum of times) or kLatencyFloorNs (a latency) to count:
    // a few microseconds of a 9 us open are scheduling, not a change.
    void add(const char* section, std::string name, const char* unit, std::optional<double> a,
             std::optional<double> b, Better better, Kind kind, std::optional<double> share_noise = {}) {
        if (!a && !b) return;
        DiffRow r{section, std::move(name), unit, a, b, better, "", std::nullopt};
        if (a && b && *a != 0) r.change = (*b - *a) / *a;
        r.verdict = verdict(r, kind, share_noise.value_or(share_noise_));
        d_.rows.push_back(std::move(r));
    }

private:
    static constexpr double kTimeFloorNs = 1e6;     // 1 ms
    static constexpr double kLatencyFloorNs = 1e3;  // 1 us

    std::string verdict(const DiffRow& r, Kind kind, double share_noise) const {
        if (!r.a) return "only in B";
        if (!r.b) return "only in A";
        const double a = *r.a, b = *r.b;
        if (a == b) return "same";
        bool moved = true;
        switch (kind) {
            case Kind::Time: {
                const double floor =
                    r.name.find("latency") != std::string::npos ? kLatencyFloorNs : kTimeFloorNs;
                const bool absolute = r.unit == std::string("ns") && std::fabs(b - a) <= floor;
                moved = !absolute && (a == 0 || std::fabs(b - a) / std::fabs(a) > d_.noise);
                break;
            }
            case Kind::Share:
                moved = std::fabs(b - a) > share_noise;
                break;
            case Kind::Count:
                break;
        }
        if (!moved) return "within noise";
        if (r.better == Better::Neither) return "changed";
        return (b < a) == (r.better == Better::Lower) ? "better" : "worse";
    }

    ReportDiff& d_;
    double share_noise_;
};

const char* const kClasses[] = {"read", "write", "open", "close", "stat", "seek", "sync", "mmap", "readdir"};

void run_rows(RowMaker& m, const json& a, const json& b) {
    const auto dur = [](const json& r) { return number(r, {"capture", "duration_ns"}); };
    m.add("run", "wall time", "ns", dur(a), dur(b), Better::Lower, Kind::Time);
    const auto throughput = [&](const json& r) -> std::optional<double> {
        auto bytes = number(r, {"totals", "read", "bytes"});
        auto ns = dur(r);
        if (!bytes || !ns || *ns <= 0) return std::nullopt;
        return *bytes / (*ns / 1e9);
    };
    m.add("run", "read throughput", "bytes/s", throughput(a), throughput(b), Better::Higher, Kind::Time);
    m.add("run", "time in I/O calls", "ns", number(a, {"totals", "read", "time_ns"}),
          number(b, {"totals", "read", "time_ns"}), Better::Lower, Kind::Time);
    m.add("run", "events", "count", number(a, {"capture", "events"}), number(b, {"capture", "events"}),
          Better::Neither, Kind::Count);
    m.add("run", "lost events", "count", number(a, {"capture", "lost_events"}),
          number(b, {"capture", "lost_events"}), Better::Lower, Kind::Count);
}

void epoch_rows(RowMaker& m, const json& a, const json& b) {
    std::set<int64_t> indexes;
    for (const auto* r : {&a, &b})
        for (const auto& e : member(*r, "epochs"))
            if (e.contains("index") && e["index"].is_number()) indexes.insert(e["index"].get<int64_t>());
    for (int64_t i : indexes) {
        const json* ea = find_by(member(a, "epochs"), "index", i);
        const json* eb = find_by(member(b, "epochs"), "index", i);
        const auto get = [](const json* e, std::initializer_list<const char*> path) {
            return e ? number(*e, path) : std::nullopt;
        };
        m.add("epochs", fmt::format("epoch {} time", i), "ns", get(ea, {"duration_ns"}),
              get(eb, {"duration_ns"}), Better::Lower, Kind::Time);
        m.add("epochs", fmt::format("epoch {} stall share", i), "share", get(ea, {"critical_io_share"}),
              get(eb, {"critical_io_share"}), Better::Lower, Kind::Share);
        m.add("epochs", fmt::format("epoch {} page-cache hit ratio", i), "share",
              get(ea, {"page_cache", "hit_ratio"}), get(eb, {"page_cache", "hit_ratio"}), Better::Higher,
              Kind::Share);
    }
}

void rank_rows(RowMaker& m, const json& a, const json& b) {
    std::set<int64_t> ranks;
    for (const auto* r : {&a, &b})
        for (const auto& k : member(*r, "ranks"))
            if (k.contains("rank") && k["rank"].is_number()) ranks.insert(k["rank"].get<int64_t>());
    for (int64_t rank : ranks) {
        const json* ra = find_by(member(a, "ranks"), "rank", rank);
        const json* rb = find_by(member(b, "ranks"), "rank", rank);
        const auto get = [](const json* r, const char* key) { return r ? number(*r, {key}) : std::nullopt; };
        // A rank's stall share moves with its epochs: the larger spread of
        // the two runs is its noise.
        std::optional<double> noise;
        for (const auto& [report, r] :
             std::initializer_list<std::pair<const json*, const json*>>{{&a, ra}, {&b, rb}})
            if (r)
                if (auto s = stall_share_spread(*report, json(rank)))
                    noise = std::max(noise.value_or(kMinNoise), *s);
        m.add("ranks", fmt::format("rank {} stall share", rank), "share", get(ra, "critical_io_share"),
              get(rb, "critical_io_share"), Better::Lower, Kind::Share, noise);
        m.add("ranks", fmt::format("rank {} I/O time", rank), "ns", get(ra, "io_time_ns"),
              get(rb, "io_time_ns"), Better::Lower, Kind::Time);
        m.add("ranks", fmt::format("rank {} wall time", rank), "ns", get(ra, "wall_ns"), get(rb, "wall_ns"),
              Better::Lower, Kind::Time);
    }
}

void class_rows(RowMaker& m, const json& a, const json& b) {
    for (const char* c : kClasses) {
        const auto calls_a = number(a, {"totals", c, "calls"}), calls_b = number(b, {"totals", c, "calls"});
        if (calls_a.value_or(0) == 0 && calls_b.value_or(0) == 0) continue;
        m.add("classes", fmt::format("{} calls", c), "count", calls_a, calls_b, Better::Neither, Kind::Count);
        if (std::string_view(c) == "read" || std::string_view(c) == "write") {
            m.add("classes", fmt::format("{} bytes", c), "bytes", number(a, {"totals", c, "bytes"}),
                  number(b, {"totals", c, "bytes"}), Better::Neither, Kind::Count);
            m.add("classes", fmt::format("{} size p50", c), "bytes",
                  number(a, {"totals", c, "size_bytes", "p50"}),
                  number(b, {"totals", c, "size_bytes", "p50"}), Better::Higher, Kind::Count);
            for (const char* p : {"p50", "p99"})
                m.add("classes", fmt::format("{} latency {}", c, p), "ns",
                      number(a, {"totals", c, "latency_ns", p}), number(b, {"totals", c, "latency_ns", p}),
                      Better::Lower, Kind::Time);
        }
        m.add("classes", fmt::format("{} time", c), "ns", number(a, {"totals", c, "time_ns"}),
              number(b, {"totals", c, "time_ns"}), Better::Lower, Kind::Time);
    }
}

void cache_rows(RowMaker& m, const json& a, const json& b) {
    m.add("page cache", "hit ratio", "share", number(a, {"page_cache", "hit_ratio"}),
          number(b, {"page_cache", "hit_ratio"}), Better::Higher, Kind::Share);
    m.add("page cache", "miss bytes", "bytes", number(a, {"page_cache", "miss_bytes"}),
          number(b, {"page_cache", "miss_bytes"}), Better::Lower, Kind::Count);
    m.add("page cache", "read ahead, never read", "bytes",
          number(a, {"page_cache", "readahead_unused_bytes"}),
          number(b, {"page_cache", "readahead_unused_bytes"}), Better::Lower, Kind::Count);
    m.add("page cache", "evicted bytes", "bytes", number(a, {"page_cache", "evicted_bytes"}),
          number(b, {"page_cache", "evicted_bytes"}), Better::Neither, Kind::Count);
}

void block_rows(RowMaker& m, const json& a, const json& b) {
    std::set<std::string> names;
    for (const auto* r : {&a, &b})
        for (const auto& d : member(member(*r, "block"), "devices")) names.insert(text(d, "name"));
    for (const auto& name : names) {
        const json* da = find_by(member(member(a, "block"), "devices"), "name", name);
        const json* db = find_by(member(member(b, "block"), "devices"), "name", name);
        const auto get = [](const json* d, std::initializer_list<const char*> path) {
            return d ? number(*d, path) : std::nullopt;
        };
        for (const char* dir : {"read", "write"}) {
            const auto bytes_a = get(da, {dir, "bytes"}), bytes_b = get(db, {dir, "bytes"});
            if (bytes_a.value_or(0) == 0 && bytes_b.value_or(0) == 0) continue;
            m.add("block", fmt::format("{} {} bytes", name, dir), "bytes", bytes_a, bytes_b, Better::Neither,
                  Kind::Count);
            for (const char* p : {"p50", "p99"})
                m.add("block", fmt::format("{} {} latency {}", name, dir, p), "ns",
                      get(da, {dir, "latency_ns", p}), get(db, {dir, "latency_ns", p}), Better::Lower,
                      Kind::Time);
        }
    }
}

// --- histograms, files, findings -------------------------------------------

std::optional<DiffHistogram> histogram(const char* name, const char* unit, const json& a, const json& b) {
    if (!a.is_object() && !b.is_object()) return std::nullopt;
    DiffHistogram h{name, unit, {}, 0, 0, 0, 0, 0, 0};
    std::map<uint64_t, DiffHistogram::Bucket> by_lo;
    const auto fill = [&](const json& hist, uint64_t DiffHistogram::Bucket::*side) {
        for (const auto& bk : member(hist, "buckets")) {
            auto& out = by_lo[bk.value("lo", uint64_t{0})];
            out.lo = bk.value("lo", uint64_t{0});
            out.hi = bk.value("hi", uint64_t{0});
            out.*side += bk.value("count", uint64_t{0});
        }
    };
    fill(a, &DiffHistogram::Bucket::a);
    fill(b, &DiffHistogram::Bucket::b);
    for (auto& [lo, bucket] : by_lo) h.buckets.push_back(bucket);
    const auto u = [](const json& j, const char* key) {
        return j.is_object() ? j.value(key, uint64_t{0}) : 0;
    };
    h.p50_a = u(a, "p50");
    h.p50_b = u(b, "p50");
    h.p99_a = u(a, "p99");
    h.p99_b = u(b, "p99");
    h.count_a = u(a, "count");
    h.count_b = u(b, "count");
    if (h.count_a == 0 && h.count_b == 0) return std::nullopt;
    return h;
}

std::set<std::string> data_files(const json& report) {
    std::set<std::string> out;
    for (const auto& f : member(report, "files")) {
        if (member(f, "software").is_boolean() && f["software"].get<bool>()) continue;
        const json& p = member(f, "path");
        out.insert(p.is_string() ? p.get<std::string>() : text(p, "text"));
    }
    return out;
}

void file_changes(ReportDiff& d, const json& a, const json& b) {
    d.files_a = static_cast<uint64_t>(number(a, {"files_total"}).value_or(0));
    d.files_b = static_cast<uint64_t>(number(b, {"files_total"}).value_or(0));
    const auto fa = data_files(a), fb = data_files(b);
    for (const auto& p : fb)
        if (!fa.count(p) && d.files_added_total++ < kMaxDiffFiles) d.files_added.push_back(p);
    for (const auto& p : fa)
        if (!fb.count(p) && d.files_gone_total++ < kMaxDiffFiles) d.files_gone.push_back(p);
}

void finding_changes(ReportDiff& d, const json& a, const json& b) {
    const auto severity = [](const json* f) { return f ? text(*f, "severity") : std::string(); };
    std::vector<std::string> order;
    for (const auto* r : {&b, &a})
        for (const auto& f : member(*r, "findings")) {
            const std::string id = text(f, "id");
            if (std::find(order.begin(), order.end(), id) == order.end()) order.push_back(id);
        }
    for (const auto& id : order) {
        const json* fa = find_by(member(a, "findings"), "id", id);
        const json* fb = find_by(member(b, "findings"), "id", id);
        const char* status = fa && fb ? "unchanged" : fb ? "new" : "resolved";
        d.findings.push_back({id, status, severity(fa), severity(fb), text(fb ? *fb : *fa, "title")});
    }
}

// --- headline ----------------------------------------------------------------

std::string pct_points(double share) { return fmt::format("{:.0f}%", share * 100); }

std::string headline(const ReportDiff& d) {
    std::vector<std::string> parts;
    std::string times;
    const auto row = [&](const std::string& name) -> const DiffRow* {
        for (const auto& r : d.rows)
            if (r.name == name) return &r;
        return nullptr;
    };
    if (const DiffRow* w = row("wall time"); w && w->a && w->b) {
        times = fmt::format("wall {} -> {}", human_ns(static_cast<uint64_t>(*w->a)),
                            human_ns(static_cast<uint64_t>(*w->b)));
        if (w->verdict == "better" || w->verdict == "worse")
            parts.push_back(fmt::format("B is {:.1f}% {} than A ({})", std::fabs(*w->change) * 100,
                                        w->verdict == "better" ? "faster" : "slower", times));
        else
            parts.push_back(fmt::format("wall time within noise ({}, {:+.1f}%)", times,
                                        w->change ? *w->change * 100 : 0.0));
    }
    // The rank whose stall share moved most, past its noise.
    const DiffRow* stall = nullptr;
    for (const auto& r : d.rows)
        if (r.section == "ranks" && r.unit == std::string("share") && r.a && r.b &&
            (r.verdict == "better" || r.verdict == "worse") &&
            (!stall || std::fabs(*r.b - *r.a) > std::fabs(*stall->b - *stall->a)))
            stall = &r;
    if (stall)
        parts.push_back(fmt::format("{} {} -> {} ({})", stall->name, pct_points(*stall->a),
                                    pct_points(*stall->b), stall->verdict));
    std::vector<std::string> resolved, added;
    for (const auto& f : d.findings) {
        if (f.status == "resolved") resolved.push_back(f.id);
        if (f.status == "new") added.push_back(f.id);
    }
    const auto join = [](const std::vector<std::string>& v) {
        std::string s;
        for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
        return s;
    };
    if (!resolved.empty()) parts.push_back("resolved: " + join(resolved));
    if (!added.empty()) parts.push_back("new: " + join(added));
    bool moved = stall || !resolved.empty() || !added.empty();
    for (const auto& r : d.rows) moved = moved || r.verdict == "better" || r.verdict == "worse";
    if (!moved) return "no change beyond noise" + (times.empty() ? "" : " (" + times + ")");
    std::string s;
    for (const auto& p : parts) s += (s.empty() ? "" : "; ") + p;
    return s;
}

}  // namespace

Result<DiffSide> load_diff_side(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return errno_error("cannot open " + path);
    char first = 0;
    in >> std::ws;
    first = static_cast<char>(in.peek());
    if (first == '{') {
        json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
        if (j.is_discarded()) return make_error(path + ": not valid JSON (nor a recording)");
        if (!j.is_object() || j.value("schema", "") != report::kReportSchema)
            return make_error(path + ": a JSON document, but not an iolens report (no \"schema\": \"" +
                              report::kReportSchema + "\")");
        if (!j.contains("version") || !j["version"].is_number_integer())
            return make_error(path + ": an iolens report without a version: not readable");
        const int version = j["version"].get<int>();
        if (version > report::kReportVersion)
            return make_error(fmt::format(
                "{}: an iolens report of version {}, written by a newer iolens; this one reads version {}: "
                "compare the recordings, or use the newer iolens",
                path, version, report::kReportVersion));
        return DiffSide{path, std::move(j)};
    }
    auto report = summarize(path);
    if (!report) return report.error();
    return DiffSide{path, report::report_to_json(*report)};
}

ReportDiff diff_reports(const DiffSide& a, const DiffSide& b) {
    ReportDiff d;
    d.a_label = a.label;
    d.b_label = b.label;
    const json &ra = a.report, &rb = b.report;
    const auto sa = epoch_time_spread(ra), sb = epoch_time_spread(rb);
    if (sa || sb) {
        d.noise = std::max({sa.value_or(0), sb.value_or(0), kMinNoise});
        d.noise_basis = fmt::format(
            "noise: epoch times varied by up to {:.1f}% within a run; a time that moved less is within noise",
            std::max(sa.value_or(0), sb.value_or(0)) * 100);
    } else {
        d.noise = kDefaultNoise;
        d.noise_basis = fmt::format(
            "noise: fewer than 2 epochs in each run to measure it; a time that moved less than {:.0f}% is "
            "called "
            "within noise",
            kDefaultNoise * 100);
    }
    RowMaker m(d, kDefaultShareNoise);
    run_rows(m, ra, rb);
    epoch_rows(m, ra, rb);
    rank_rows(m, ra, rb);
    class_rows(m, ra, rb);
    cache_rows(m, ra, rb);
    block_rows(m, ra, rb);
    for (const auto& [name, unit, key] :
         {std::tuple{"read size", "bytes", "size_bytes"}, std::tuple{"read latency", "ns", "latency_ns"}})
        if (auto h = histogram(name, unit, member(member(member(ra, "totals"), "read"), key),
                               member(member(member(rb, "totals"), "read"), key)))
            d.histograms.push_back(std::move(*h));
    file_changes(d, ra, rb);
    finding_changes(d, ra, rb);

    const std::string ca = command_line(ra), cb = command_line(rb);
    if (ca != cb) d.notes.push_back(fmt::format("the runs' commands differ: A ran `{}`, B ran `{}`", ca, cb));
    for (const auto& [label, r] :
         std::initializer_list<std::pair<const char*, const json*>>{{"A", &ra}, {"B", &rb}})
        if (member(member(*r, "capture"), "partial").is_boolean() && (*r)["capture"]["partial"].get<bool>())
            d.notes.push_back(fmt::format("{} is a partial recording: {}", label,
                                          text(member(*r, "capture"), "partial_reason")));
    d.notes.push_back(d.noise_basis);
    d.headline = headline(d);
    return d;
}

}  // namespace iolens::analysis
