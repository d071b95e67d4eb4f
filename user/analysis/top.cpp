#include "analysis/top.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "util/units.h"

namespace iolens::analysis {

namespace {

constexpr size_t kMaxRows = 200;

uint64_t calls_of(const model::OpTable& ops) {
    uint64_t n = 0;
    for (const auto& o : ops) n += o.calls;
    return n;
}

uint64_t minus(uint64_t now, uint64_t before) { return now > before ? now - before : 0; }

double per_second(uint64_t delta, uint64_t interval_ns) {
    return interval_ns ? static_cast<double>(delta) * 1e9 / static_cast<double>(interval_ns) : 0;
}

// A row from the same thing's op table now and one interval ago (nullptr:
// it did not exist then).
TopRow row(std::string name, const model::OpTable& now, const model::OpTable* before, uint64_t interval_ns) {
    TopRow r;
    r.name = std::move(name);
    r.read_bytes = now[IOLENS_OP_READ].bytes;
    r.write_bytes = now[IOLENS_OP_WRITE].bytes;
    r.calls = calls_of(now);
    const uint64_t rb = before ? (*before)[IOLENS_OP_READ].bytes : 0;
    const uint64_t wb = before ? (*before)[IOLENS_OP_WRITE].bytes : 0;
    const uint64_t c = before ? calls_of(*before) : 0;
    r.read_bps = per_second(minus(r.read_bytes, rb), interval_ns);
    r.write_bps = per_second(minus(r.write_bytes, wb), interval_ns);
    r.calls_ps = per_second(minus(r.calls, c), interval_ns);
    return r;
}

std::vector<TopRow> rank_rows(const model::Report& prev, const model::Report& cur, uint64_t interval_ns) {
    std::vector<TopRow> out;
    for (const auto& k : cur.ranks) {
        const model::RankStats* was = nullptr;
        for (const auto& p : prev.ranks)
            if (p.rank == k.rank) was = &p;
        TopRow r = row(fmt::format("rank {}", k.rank), k.ops, was ? &was->ops : nullptr, interval_ns);
        // The epoch the rank is in: the last one it has a share of.
        uint32_t epoch = 0;
        for (const auto& e : cur.epochs)
            for (const auto& er : e.ranks)
                if (er.rank == k.rank) epoch = std::max(epoch, e.index);
        if (epoch) r.note = fmt::format("epoch {}", epoch);
        const uint64_t wall = minus(k.wall_ns, was ? was->wall_ns : 0);
        const uint64_t critical = minus(k.critical_io_ns, was ? was->critical_io_ns : 0);
        if (wall) r.stall_share = std::min(1.0, static_cast<double>(critical) / static_cast<double>(wall));
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<TopRow> process_rows(const model::Report& prev, const model::Report& cur, uint64_t interval_ns) {
    std::map<uint32_t, const model::ProcessStats*> before;
    for (const auto& p : prev.processes) before[p.info.pid] = &p;
    std::vector<TopRow> out;
    for (const auto& p : cur.processes) {
        auto it = before.find(p.info.pid);
        out.push_back(row(fmt::format("{} {}", p.info.pid, p.info.comm), p.ops,
                          it == before.end() ? nullptr : &it->second->ops, interval_ns));
    }
    return out;
}

std::vector<TopRow> file_rows(const model::Report& prev, const model::Report& cur, uint64_t interval_ns) {
    std::map<std::pair<uint32_t, uint64_t>, const model::FileStats*> before;
    for (const auto& f : prev.files) before[{f.dev, f.ino}] = &f;
    std::vector<TopRow> out;
    for (const auto& f : cur.files) {
        auto it = before.find({f.dev, f.ino});
        out.push_back(row(f.path, f.ops, it == before.end() ? nullptr : &it->second->ops, interval_ns));
    }
    return out;
}

std::vector<TopRow> device_rows(const model::Report& prev, const model::Report& cur, uint64_t interval_ns) {
    std::vector<TopRow> out;
    for (const auto& d : cur.block_devices) {
        const model::BlockDevice* was = nullptr;
        for (const auto& p : prev.block_devices)
            if (p.dev == d.dev) was = &p;
        TopRow r;
        r.name = d.name;
        r.read_bytes = d.read.bytes;
        r.write_bytes = d.write.bytes;
        r.calls = d.read.requests + d.write.requests;
        r.read_bps = per_second(minus(d.read.bytes, was ? was->read.bytes : 0), interval_ns);
        r.write_bps = per_second(minus(d.write.bytes, was ? was->write.bytes : 0), interval_ns);
        r.calls_ps =
            per_second(minus(r.calls, was ? was->read.requests + was->write.requests : 0), interval_ns);
        if (d.read.requests) r.note = "read p99 " + human_ns(d.read.latency_ns.percentile(0.99));
        out.push_back(std::move(r));
    }
    return out;
}

}  // namespace

const char* top_view_name(TopView v) {
    switch (v) {
        case TopView::Ranks:
            return "ranks";
        case TopView::Processes:
            return "processes";
        case TopView::Files:
            return "files";
        case TopView::Devices:
            return "devices";
    }
    return "?";
}

TopFrame make_top_frame(const model::Report& prev, const model::Report& cur, uint64_t interval_ns,
                        TopView view) {
    TopFrame f;
    f.interval_ns = interval_ns;
    f.elapsed_ns = cur.capture.duration_ns;
    f.view = view;
    const auto& t = cur.totals;
    const auto& p = prev.totals;
    f.read_bytes = t[IOLENS_OP_READ].bytes;
    f.write_bytes = t[IOLENS_OP_WRITE].bytes;
    f.calls = calls_of(t);
    f.interval_read_bytes = minus(f.read_bytes, p[IOLENS_OP_READ].bytes);
    f.interval_write_bytes = minus(f.write_bytes, p[IOLENS_OP_WRITE].bytes);
    f.interval_calls = minus(f.calls, calls_of(p));
    f.read_bps = per_second(f.interval_read_bytes, interval_ns);
    f.write_bps = per_second(f.interval_write_bytes, interval_ns);
    f.calls_ps = per_second(f.interval_calls, interval_ns);
    const auto& c = cur.page_cache;
    const auto& b = prev.page_cache;
    const uint64_t hits = minus(c.hit_bytes, b.hit_bytes);
    const uint64_t all = hits + minus(c.miss_bytes, b.miss_bytes) + minus(c.fault_bytes, b.fault_bytes) +
                         minus(c.direct_bytes, b.direct_bytes);
    if (all) f.hit_ratio = static_cast<double>(hits) / static_cast<double>(all);
    for (const auto& d : cur.block_devices) {
        const model::BlockDevice* was = nullptr;
        for (const auto& x : prev.block_devices)
            if (x.dev == d.dev) was = &x;
        f.devices.push_back({d.name, per_second(minus(d.read.bytes, was ? was->read.bytes : 0), interval_ns),
                             per_second(minus(d.write.bytes, was ? was->write.bytes : 0), interval_ns),
                             d.read.requests ? d.read.latency_ns.percentile(0.99) : 0});
    }
    switch (view) {
        case TopView::Ranks:
            f.rows = rank_rows(prev, cur, interval_ns);
            break;
        case TopView::Processes:
            f.rows = process_rows(prev, cur, interval_ns);
            break;
        case TopView::Files:
            f.rows = file_rows(prev, cur, interval_ns);
            break;
        case TopView::Devices:
            f.rows = device_rows(prev, cur, interval_ns);
            break;
    }
    // Ranks keep their order; the others: busiest over the interval first.
    if (view != TopView::Ranks)
        std::stable_sort(f.rows.begin(), f.rows.end(), [](const TopRow& a, const TopRow& b) {
            const double ra = a.read_bps + a.write_bps, rb = b.read_bps + b.write_bps;
            if (ra != rb) return ra > rb;
            return a.read_bytes + a.write_bytes > b.read_bytes + b.write_bytes;
        });
    if (f.rows.size() > kMaxRows) f.rows.resize(kMaxRows);
    for (const auto& x : cur.findings)
        f.findings.push_back(std::string(model::severity_name(x.severity)) + " " + x.id + ": " + x.title);
    return f;
}

}  // namespace iolens::analysis
