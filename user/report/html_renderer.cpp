#include "report/html_renderer.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "report/findings_renderer.h"
#include "report/text_format.h"

namespace iolens::report {

std::string html_text(std::string_view s) {
    const std::string p = printable(s);
    std::string out;
    out.reserve(p.size() + 16);
    for (char ch : p) switch (ch) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                out += ch;
        }
    return out;
}

namespace {

using model::Histogram;
using model::OpStats;

constexpr const char* kStyle = R"(
body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d2230;background:#f6f7f9}
header{background:#1d2a44;color:#fff;padding:14px 24px}
header h1{margin:0;font-size:20px}
header .sub{opacity:.8;font-size:13px;word-break:break-all}
main{padding:8px 24px 40px;max-width:1400px}
section{background:#fff;border:1px solid #dde1e8;border-radius:6px;margin:14px 0;padding:10px 16px}
h2{font-size:16px;margin:4px 0 10px}
h3{font-size:14px;margin:10px 0 4px}
.cards{display:flex;flex-wrap:wrap;gap:10px}
.card{border:1px solid #e3e6ec;border-radius:5px;padding:6px 12px;min-width:130px}
.card .k{font-size:12px;color:#5a6275}.card .v{font-size:18px;font-weight:600}
.finding{border-left:5px solid #8a94a8;padding:4px 10px;margin:8px 0;background:#fafbfc}
.finding.high{border-color:#c62828}.finding.warn{border-color:#e69500}
.sev{font-size:11px;font-weight:700;text-transform:uppercase;margin-right:6px}
.high .sev{color:#c62828}.warn .sev{color:#b87700}.info .sev{color:#5a6275}
.ev{font-size:12px;color:#444}.rec{font-size:13px;margin-top:2px}
table{border-collapse:collapse;font-size:12.5px;width:100%}
th,td{padding:3px 8px;border-bottom:1px solid #eceef2;text-align:right;white-space:nowrap}
th{background:#f0f2f5;position:sticky;top:0;cursor:pointer;user-select:none}
th.sorted-asc::after{content:" \25B2"}th.sorted-desc::after{content:" \25BC"}
td.t,th.t{text-align:left;white-space:normal;word-break:break-all}
.scroll{max-height:480px;overflow:auto;border:1px solid #eceef2}
.charts{display:flex;flex-wrap:wrap;gap:18px}
.chart{flex:0 0 auto}
svg text{font:11px system-ui,sans-serif;fill:#3a4152}
.note{font-size:12px;color:#5a6275}
.legend span{display:inline-block;margin-right:14px;font-size:12px}
.legend i{display:inline-block;width:10px;height:10px;margin-right:4px;vertical-align:-1px}
.partial{background:#fff3cd;border:1px solid #e6c200;padding:8px 12px;border-radius:5px;margin-top:12px}
)";

// Sorts a table by the clicked column: numbers by each cell's data-v, text
// by its text. No library: these few lines are all the page runs.
constexpr const char* kScript = R"(
document.querySelectorAll('table.sortable').forEach(function(t){
  t.querySelectorAll('th').forEach(function(th,i){
    th.addEventListener('click',function(){
      var desc=!th.classList.contains('sorted-desc');
      t.querySelectorAll('th').forEach(function(h){h.classList.remove('sorted-asc','sorted-desc');});
      th.classList.add(desc?'sorted-desc':'sorted-asc');
      var num=!th.classList.contains('t'),b=t.tBodies[0],rows=Array.from(b.rows);
      rows.sort(function(x,y){
        var a=x.cells[i],c=y.cells[i],r;
        if(num){r=parseFloat(a.dataset.v||'-1')-parseFloat(c.dataset.v||'-1');}
        else{r=a.textContent.localeCompare(c.textContent);}
        return desc?-r:r;});
      rows.forEach(function(r){b.appendChild(r);});
    });
  });
});
)";

std::string ratio_text(std::optional<double> r) { return r ? fmt::format("{:.1f}%", *r * 100) : "n/a"; }
std::string ratio_value(std::optional<double> r) { return r ? fmt::format("{:.6f}", *r) : ""; }

// A summary card: a label, the human value, and the exact one in data-v.
void card(std::string& o, const char* key, const std::string& label, const std::string& text,
          const std::string& value) {
    o += fmt::format(
        R"(<div class="card" data-key="{}"><div class="k">{}</div><div class="v" data-v="{}">{}</div></div>)",
        key, label, value, html_text(text));
}

// A table cell with its exact value for sorting and tests.
std::string num_cell(uint64_t v, const std::string& text) {
    return fmt::format(R"(<td data-v="{}">{}</td>)", v, html_text(text));
}
std::string ratio_cell(std::optional<double> r) {
    return fmt::format(R"(<td data-v="{}">{}</td>)", ratio_value(r), ratio_text(r));
}

std::string bucket_label(uint64_t v, bool ns) { return ns ? human_ns(v) : human_bytes(v); }

// A histogram as bars, one per power-of-two bucket (gaps filled).
void histogram_chart(std::string& o, const char* id, const std::string& title, const Histogram& h, bool ns) {
    o += fmt::format(R"(<div class="chart" id="{}" data-count="{}"><h3>{}</h3>)", id, h.count(),
                     html_text(title));
    const auto buckets = h.buckets(true);
    if (buckets.empty()) {
        o += R"(<p class="note">no samples</p></div>)";
        return;
    }
    uint64_t top = 1;
    for (const auto& b : buckets) top = std::max(top, b.count);
    const int bw = std::clamp<int>(420 / static_cast<int>(buckets.size()), 8, 40);
    const int w = 50 + bw * static_cast<int>(buckets.size()), ph = 130, hgt = ph + 60;
    o += fmt::format(R"(<svg width="{}" height="{}" role="img">)", w, hgt);
    o += fmt::format(R"(<text x="0" y="12">{}</text>)", human_count(top));
    o += fmt::format(R"(<line x1="46" y1="10" x2="46" y2="{}" stroke="#999"/>)", 10 + ph);
    for (size_t i = 0; i < buckets.size(); ++i) {
        const auto& b = buckets[i];
        const double bh = static_cast<double>(b.count) / static_cast<double>(top) * ph;
        const int x = 50 + bw * static_cast<int>(i);
        o += fmt::format(
            R"(<rect class="bar" x="{}" y="{:.1f}" width="{}" height="{:.1f}" fill="#3f6fb5" data-lo="{}" data-count="{}"><title>{} to {}: {}</title></rect>)",
            x, 10 + ph - bh, bw - 2, bh, b.lo, b.count, bucket_label(b.lo, ns),
            b.hi == UINT64_MAX ? "more" : bucket_label(b.hi, ns), human_count(b.count));
        if (i % std::max<size_t>(1, buckets.size() / 8) == 0)
            o += fmt::format(R"~(<text x="{}" y="{}" transform="rotate(45 {} {})">{}</text>)~", x, 14 + ph, x,
                             14 + ph, bucket_label(b.lo, ns));
    }
    o += "</svg>";
    o += fmt::format(R"(<div class="note">p50 {}, p99 {}, max {}</div></div>)",
                     bucket_label(h.percentile(0.5), ns), bucket_label(h.percentile(0.99), ns),
                     bucket_label(h.max(), ns));
}

void header(std::string& o, const model::Report& r) {
    const auto& c = r.capture;
    std::vector<std::string> argv = c.command;
    std::string what = argv.empty() ? "attached to pids" : shell_join(argv);
    if (argv.empty())
        for (uint32_t p : c.pids) what += " " + std::to_string(p);
    o += "<header><h1>iolens report</h1>";
    o += fmt::format(R"(<div class="sub" id="command">{}</div>)", html_text(what));
    o += fmt::format(R"(<div class="sub">{} on {} ({}), iolens {}</div></header>)", human_ns(c.duration_ns),
                     html_text(c.hostname), html_text(c.kernel_release), html_text(c.iolens_version));
    o += "<main>";
    if (c.partial)
        o += fmt::format(R"(<div class="partial" id="partial">Partial report: {}</div>)",
                         html_text(c.partial_reason));
    for (const auto& l : r.limits) o += fmt::format(R"(<div class="partial">{}</div>)", html_text(l));
}

void summary(std::string& o, const model::Report& r) {
    const OpStats& rd = r.totals[IOLENS_OP_READ];
    const OpStats& wr = r.totals[IOLENS_OP_WRITE];
    uint64_t calls = 0;
    for (const auto& op : r.totals) calls += op.calls;
    o += R"(<section id="summary"><h2>Summary</h2><div class="cards">)";
    card(o, "duration_ns", "capture", human_ns(r.capture.duration_ns), std::to_string(r.capture.duration_ns));
    card(o, "calls", "traced calls", human_count(calls), std::to_string(calls));
    card(o, "io_time_ns", "time in calls", human_ns(model::total_time_ns(r.totals)),
         std::to_string(model::total_time_ns(r.totals)));
    card(o, "read_bytes", "read", human_bytes(rd.bytes), std::to_string(rd.bytes));
    card(o, "read_calls", "read calls", human_count(rd.calls), std::to_string(rd.calls));
    card(o, "write_bytes", "written", human_bytes(wr.bytes), std::to_string(wr.bytes));
    card(o, "write_calls", "write calls", human_count(wr.calls), std::to_string(wr.calls));
    card(o, "read_p50_ns", "read latency p50", human_ns(rd.latency_ns.percentile(0.5)),
         std::to_string(rd.latency_ns.percentile(0.5)));
    const bool cache = recording::probe_live(r.capture, recording::kProbePageCache);
    card(o, "hit_ratio", "page-cache hit ratio",
         cache ? ratio_text(r.page_cache.hit_ratio()) : "not measured",
         cache ? ratio_value(r.page_cache.hit_ratio()) : "");
    card(o, "processes", "processes", human_count(r.processes.size()), std::to_string(r.processes.size()));
    card(o, "files_total", "files", human_count(r.files_total), std::to_string(r.files_total));
    card(o, "ranks", "ranks", human_count(r.ranks.size()), std::to_string(r.ranks.size()));
    card(o, "epochs", "epochs", human_count(r.epochs.size()), std::to_string(r.epochs.size()));
    card(o, "lost_events", "lost events", human_count(r.capture.lost_events),
         std::to_string(r.capture.lost_events));
    o += "</div></section>";
}

void findings(std::string& o, const model::Report& r) {
    o += fmt::format(R"(<section id="findings" data-count="{}"><h2>Findings</h2>)", r.findings.size());
    if (r.findings.empty()) o += R"(<p class="note">No findings: no rule's threshold was crossed.</p>)";
    for (const auto& f : r.findings) {
        const char* sev = model::severity_name(f.severity);
        o += fmt::format(
            R"(<div class="finding {}" data-id="{}" data-severity="{}"><span class="sev">{}</span><b>{}</b>)",
            sev, html_text(f.id), sev, sev, html_text(f.title));
        std::string ev;
        for (const auto& [key, v] : f.evidence.items()) {
            if (v.unit == model::Unit::Details || v.value.is_structured()) continue;
            ev += (ev.empty() ? "" : ", ") + detail::label_of(key) + " " + detail::value_of(v);
        }
        if (!ev.empty()) o += fmt::format(R"(<div class="ev">{}</div>)", html_text(ev));
        if (!f.recommendation.empty())
            o += fmt::format(R"(<div class="rec">{}</div>)", html_text(f.recommendation));
        o += "</div>";
    }
    o += "</section>";
}

// Per rank: read bytes as bars, I/O time and critical (main-thread) I/O time
// as the share of each bin, epochs as bands behind them.
void timeline(std::string& o, const model::Report& r) {
    o += R"(<section id="timeline"><h2>Timeline per rank</h2>)";
    if (!r.timeline || r.timeline->ranks.empty()) {
        o +=
            R"(<p class="note">No timeline: the recording has no ranks (it was built without the DL attribution).</p></section>)";
        return;
    }
    const model::Timeline& t = *r.timeline;
    o +=
        R"(<div class="legend"><span><i style="background:#3f6fb5"></i>read bytes</span><span><i style="background:#f0a030"></i>I/O busy (share of the bin any thread was in file I/O)</span><span><i style="background:#c62828"></i>critical I/O (the main thread waited for I/O)</span><span><i style="background:#e8eefb;border:1px solid #b9c6e6"></i>epoch</span></div>)";
    uint64_t top = 1;
    for (const auto& rt : t.ranks)
        for (uint64_t b : rt.read_bytes) top = std::max(top, b);
    const int left = 70, w = 1000, row = 70, gap = 20;
    const double bx = static_cast<double>(w) / static_cast<double>(t.bins);
    const int height = static_cast<int>(t.ranks.size()) * (row + gap) + 30;
    o += fmt::format(R"(<svg id="timeline-chart" width="{}" height="{}" data-bins="{}" data-bin-ns="{}">)",
                     left + w + 50, height, t.bins, t.bin_ns);
    const uint64_t span = t.bin_ns * t.bins;
    const auto xof = [&](uint64_t ts) {
        const double f =
            ts <= t.start_ns ? 0 : static_cast<double>(ts - t.start_ns) / static_cast<double>(span);
        return left + std::min(1.0, f) * w;
    };
    for (size_t i = 0; i < t.ranks.size(); ++i) {
        const auto& rt = t.ranks[i];
        const auto& rs = r.ranks[i];
        uint64_t rbytes = 0, io = 0, crit = 0;
        for (size_t b = 0; b < t.bins; ++b)
            rbytes += rt.read_bytes[b], io += rt.io_ns[b], crit += rt.critical_ns[b];
        const int y0 = 10 + static_cast<int>(i) * (row + gap);
        o += fmt::format(
            R"(<g class="rank-row" data-rank="{}" data-read-bytes="{}" data-io-ns="{}" data-critical-ns="{}">)",
            rt.rank, rbytes, io, crit);
        o += fmt::format(R"(<text x="0" y="{}">rank {}</text>)", y0 + row / 2, rt.rank);
        o += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="#fbfbfd" stroke="#dde1e8"/>)",
                         left, y0, w, row);
        // Epoch bands: the rank's own windows when the report has them.
        for (const auto& ep : r.epochs) {
            uint64_t s = ep.start_ns, e = ep.end_ns;
            if (i < ep.ranks.size()) s = ep.ranks[i].start_ns, e = ep.ranks[i].end_ns;
            const double x0 = xof(s), x1 = xof(e);
            o += fmt::format(
                R"(<rect class="epoch" x="{:.1f}" y="{}" width="{:.1f}" height="{}" fill="#e8eefb" stroke="#b9c6e6" data-epoch="{}"><title>epoch {}: {}</title></rect>)",
                x0, y0, std::max(0.5, x1 - x0), row, ep.index, ep.index, human_ns(e > s ? e - s : 0));
            if (x1 - x0 > 30)
                o += fmt::format(R"(<text x="{:.1f}" y="{}">e{}</text>)", x0 + 2, y0 + 10, ep.index);
        }
        // I/O busy and critical as step lines over the bins (share of bin time).
        std::string busy, critical;
        for (size_t b = 0; b < t.bins; ++b) {
            const double x = left + bx * static_cast<double>(b);
            const double fb = std::min(1.0, static_cast<double>(rt.io_ns[b]) / static_cast<double>(t.bin_ns));
            const double fc =
                std::min(1.0, static_cast<double>(rt.critical_ns[b]) / static_cast<double>(t.bin_ns));
            busy += fmt::format("{:.1f},{:.1f} {:.1f},{:.1f} ", x, y0 + row - fb * row, x + bx,
                                y0 + row - fb * row);
            critical += fmt::format("{:.1f},{:.1f} {:.1f},{:.1f} ", x, y0 + row - fc * row, x + bx,
                                    y0 + row - fc * row);
            if (rt.read_bytes[b]) {
                const double h = static_cast<double>(rt.read_bytes[b]) / static_cast<double>(top) * (row - 4);
                o += fmt::format(
                    R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="#3f6fb5" opacity="0.75"><title>{} read at {}</title></rect>)",
                    x, y0 + row - h, std::max(0.5, bx - 0.3), h, human_bytes(rt.read_bytes[b]),
                    human_ns(b * t.bin_ns));
            }
        }
        o += fmt::format(R"(<polyline points="{}" fill="none" stroke="#f0a030" stroke-width="1.5"/>)", busy);
        o += fmt::format(R"(<polyline points="{}" fill="none" stroke="#c62828" stroke-width="1.5"/>)",
                         critical);
        o += fmt::format(R"(<text x="{}" y="{}" class="note">{} read, I/O {}, critical {} of {}</text>)",
                         left + 4, y0 + row + 11, human_bytes(rbytes), human_ns(io), human_ns(crit),
                         human_ns(rs.wall_ns));
        o += "</g>";
    }
    const int ya = height - 6;
    for (int k = 0; k <= 5; ++k)
        o += fmt::format(R"(<text x="{}" y="{}">{}</text>)", left + k * w / 5 - (k ? 20 : 0), ya,
                         human_ns(span / 5 * static_cast<uint64_t>(k)));
    o += "</svg>";
    o += fmt::format(R"(<p class="note">{} bins of {}; bars scaled to the largest bin ({}).</p></section>)",
                     t.bins, human_ns(t.bin_ns), human_bytes(top));
}

void histograms(std::string& o, const model::Report& r) {
    o += R"(<section id="histograms"><h2>Sizes and latencies</h2><div class="charts">)";
    histogram_chart(o, "hist-read-size", "read size", r.totals[IOLENS_OP_READ].size_bytes, false);
    histogram_chart(o, "hist-read-latency", "read latency", r.totals[IOLENS_OP_READ].latency_ns, true);
    histogram_chart(o, "hist-write-size", "write size", r.totals[IOLENS_OP_WRITE].size_bytes, false);
    histogram_chart(o, "hist-write-latency", "write latency", r.totals[IOLENS_OP_WRITE].latency_ns, true);
    o += "</div></section>";
}

void page_cache(std::string& o, const model::Report& r) {
    o += R"(<section id="page-cache"><h2>Page cache per epoch</h2>)";
    if (!recording::probe_live(r.capture, recording::kProbePageCache)) {
        o += fmt::format(R"(<p class="note">Not measured: {}</p></section>)",
                         html_text(recording::probe_missing_reason(r.capture, recording::kProbePageCache)));
        return;
    }
    o += fmt::format(
        R"(<p>Whole capture: <b data-key="hit_ratio" data-v="{}">{}</b> of read bytes were cached ({} hit, {} missed, {} read ahead).</p>)",
        ratio_value(r.page_cache.hit_ratio()), ratio_text(r.page_cache.hit_ratio()),
        human_bytes(r.page_cache.hit_bytes), human_bytes(r.page_cache.miss_bytes),
        human_bytes(r.page_cache.readahead_bytes));
    if (r.epochs.empty()) {
        o += R"(<p class="note">No epochs (no epoch markers, and no re-read cycle was found).</p></section>)";
        return;
    }
    const int bw = std::clamp<int>(800 / static_cast<int>(r.epochs.size()), 3, 50), ph = 120;
    o += fmt::format(R"(<svg id="epoch-hit-chart" width="{}" height="{}">)",
                     60 + bw * static_cast<int>(r.epochs.size()), ph + 40);
    o += R"(<text x="0" y="14">100%</text>)";
    o += fmt::format(R"(<text x="0" y="{}">0%</text>)", 10 + ph);
    for (size_t k = 0; k < r.epochs.size(); ++k) {
        const auto& ep = r.epochs[k];
        const auto hr = ep.page_cache.hit_ratio();
        const double h = hr ? *hr * ph : 0;
        const int x = 50 + bw * static_cast<int>(k);
        o += fmt::format(R"(<rect x="{}" y="10" width="{}" height="{}" fill="#eef0f4"/>)", x, bw - 2, ph);
        o += fmt::format(
            R"(<rect class="epoch-hit" x="{}" y="{:.1f}" width="{}" height="{:.1f}" fill="#2e8b57" data-epoch="{}" data-v="{}"><title>epoch {}: {} cached</title></rect>)",
            x, 10 + ph - h, bw - 2, h, ep.index, ratio_value(hr), ep.index, ratio_text(hr));
        if (r.epochs.size() <= 40 || k % (r.epochs.size() / 20) == 0)
            o += fmt::format(R"(<text x="{}" y="{}">{}</text>)", x, ph + 26, ep.index);
    }
    o += "</svg>";
    o +=
        R"(<div class="scroll"><table class="sortable" id="epoch-table"><thead><tr><th>epoch</th><th class="t">source</th><th>duration</th><th>read</th><th>hit ratio</th><th>cache misses</th><th>I/O time (ranks)</th><th>critical I/O</th></tr></thead><tbody>)";
    for (const auto& ep : r.epochs)
        o += "<tr>" + num_cell(ep.index, std::to_string(ep.index)) + "<td class=\"t\">" +
             model::epoch_source_name(ep.source) + "</td>" +
             num_cell(ep.duration_ns(), human_ns(ep.duration_ns())) +
             num_cell(ep.ops[IOLENS_OP_READ].bytes, human_bytes(ep.ops[IOLENS_OP_READ].bytes)) +
             ratio_cell(ep.page_cache.hit_ratio()) +
             num_cell(ep.page_cache.miss_bytes, human_bytes(ep.page_cache.miss_bytes)) +
             num_cell(ep.rank_io_time_ns(), human_ns(ep.rank_io_time_ns())) +
             num_cell(ep.rank_critical_io_ns(), human_ns(ep.rank_critical_io_ns())) + "</tr>";
    o += "</tbody></table></div></section>";
}

void block(std::string& o, const model::Report& r) {
    o += R"(<section id="block"><h2>Block devices</h2>)";
    if (!recording::probe_live(r.capture, recording::kProbeBlock)) {
        o += fmt::format(R"(<p class="note">Not measured: {}</p></section>)",
                         html_text(recording::probe_missing_reason(r.capture, recording::kProbeBlock)));
        return;
    }
    if (r.block_devices.empty()) {
        o += R"(<p class="note">No block requests completed during the capture.</p></section>)";
        return;
    }
    o +=
        R"(<table class="sortable" id="block-table"><thead><tr><th class="t">device</th><th>read requests</th><th>read</th><th>read p50</th><th>read p99</th><th>write requests</th><th>written</th><th>write p50</th><th>write p99</th><th>max depth</th></tr></thead><tbody>)";
    for (const auto& d : r.block_devices) {
        const auto lat = [](const model::BlockStats& s, double q) {
            const uint64_t v = s.latency_ns.percentile(q);
            return num_cell(v, s.requests ? human_ns(v) : "-");
        };
        o += fmt::format(R"(<tr data-device="{}"><td class="t">{}</td>)", html_text(d.name),
                         html_text(d.name)) +
             num_cell(d.read.requests, human_count(d.read.requests)) +
             num_cell(d.read.bytes, human_bytes(d.read.bytes)) + lat(d.read, 0.5) + lat(d.read, 0.99) +
             num_cell(d.write.requests, human_count(d.write.requests)) +
             num_cell(d.write.bytes, human_bytes(d.write.bytes)) + lat(d.write, 0.5) + lat(d.write, 0.99) +
             num_cell(std::max(d.read.max_depth, d.write.max_depth),
                      std::to_string(std::max(d.read.max_depth, d.write.max_depth))) +
             "</tr>";
    }
    o += R"(</tbody></table><div class="charts">)";
    for (size_t i = 0; i < r.block_devices.size() && i < 8; ++i) {
        const auto& d = r.block_devices[i];
        Histogram all = d.read.latency_ns;
        all.merge(d.write.latency_ns);
        histogram_chart(o, fmt::format("block-latency-{}", i).c_str(), d.name + ": request latency", all,
                        true);
    }
    o += "</div></section>";
}

void ranks(std::string& o, const model::Report& r) {
    o += R"(<section id="ranks"><h2>Ranks</h2>)";
    if (r.ranks.empty()) {
        o += R"(<p class="note">No ranks.</p></section>)";
        return;
    }
    o +=
        R"(<div class="scroll"><table class="sortable" id="rank-table"><thead><tr><th>rank</th><th>processes</th><th>read</th><th>read calls</th><th>wall</th><th>I/O time</th><th>I/O share</th><th>critical I/O</th><th>critical share</th><th>hit ratio</th></tr></thead><tbody>)";
    for (const auto& rk : r.ranks)
        o += fmt::format(R"(<tr data-rank="{}"><td data-v="{}">{}</td>)", rk.rank, rk.rank, rk.rank) +
             num_cell(rk.pids.size(), std::to_string(rk.pids.size())) +
             num_cell(rk.ops[IOLENS_OP_READ].bytes, human_bytes(rk.ops[IOLENS_OP_READ].bytes)) +
             num_cell(rk.ops[IOLENS_OP_READ].calls, human_count(rk.ops[IOLENS_OP_READ].calls)) +
             num_cell(rk.wall_ns, human_ns(rk.wall_ns)) + num_cell(rk.io_time_ns, human_ns(rk.io_time_ns)) +
             ratio_cell(rk.io_time_share()) + num_cell(rk.critical_io_ns, human_ns(rk.critical_io_ns)) +
             ratio_cell(rk.critical_io_share()) + ratio_cell(rk.page_cache.hit_ratio()) + "</tr>";
    o += "</tbody></table></div></section>";
}

void files(std::string& o, const model::Report& r) {
    o += fmt::format(R"(<section id="files" data-total="{}" data-omitted="{}"><h2>Files</h2>)", r.files_total,
                     r.files_omitted);
    if (r.files_omitted)
        o += fmt::format(
            R"(<p class="note">The {} files that moved the most bytes of {} (the report keeps that many: --max-files).</p>)",
            human_count(r.files.size()), human_count(r.files_total));
    o +=
        R"(<div class="scroll"><table class="sortable" id="file-table"><thead><tr><th class="t">file</th><th>read</th><th>reads</th><th>written</th><th>writes</th><th>opens</th><th>time in calls</th><th>hit ratio</th><th>sequential</th></tr></thead><tbody>)";
    for (const auto& f : r.files) {
        const auto& rd = f.ops[IOLENS_OP_READ];
        const auto& wr = f.ops[IOLENS_OP_WRITE];
        const auto seq = model::sequential_share(f.sequential, f.random);
        o += fmt::format(R"(<tr><td class="t">{}</td>)", html_text(f.path)) +
             num_cell(rd.bytes, human_bytes(rd.bytes)) + num_cell(rd.calls, human_count(rd.calls)) +
             num_cell(wr.bytes, human_bytes(wr.bytes)) + num_cell(wr.calls, human_count(wr.calls)) +
             num_cell(f.ops[IOLENS_OP_OPEN].calls, human_count(f.ops[IOLENS_OP_OPEN].calls)) +
             num_cell(model::total_time_ns(f.ops), human_ns(model::total_time_ns(f.ops))) +
             ratio_cell(f.page_cache.hit_ratio()) + ratio_cell(seq) + "</tr>";
    }
    o += "</tbody></table></div></section>";
}

// record --stacks only: the calls by call site, the stack innermost first.
void call_sites(std::string& o, const model::Report& r) {
    if (!r.call_sites) return;
    const auto& cs = *r.call_sites;
    constexpr size_t kMaxSites = 200;
    o += fmt::format(R"(<section id="call-sites" data-count="{}"><h2>Call sites</h2>)", cs.sites.size());
    o += fmt::format(
        R"(<p class="note">--stacks={}: {} stacks; {} of {} calls charged to one (docs/call-sites.md).{}</p>)",
        html_text(cs.spec), human_count(cs.stacks), human_count(cs.calls),
        human_count(cs.calls + cs.calls_without),
        cs.sites.size() > kMaxSites
            ? fmt::format(" The {} that moved the most bytes of {}.", kMaxSites, human_count(cs.sites.size()))
            : std::string());
    o +=
        R"(<div class="scroll"><table class="sortable" id="call-library-table"><thead><tr><th class="t">library (innermost outside libc, the loader, libstdc++)</th><th>read</th><th>written</th><th>calls</th><th>time in calls</th><th>cache in</th><th>call sites</th></tr></thead><tbody>)";
    for (const auto& l : cs.libraries)
        o += fmt::format(R"(<tr><td class="t">{}</td>)",
                         html_text(l.module.empty() ? std::string("(the runtimes only)") : l.module)) +
             num_cell(l.read_bytes, human_bytes(l.read_bytes)) +
             num_cell(l.write_bytes, human_bytes(l.write_bytes)) + num_cell(l.calls, human_count(l.calls)) +
             num_cell(l.time_ns, human_ns(l.time_ns)) +
             num_cell(l.cache_miss_bytes, human_bytes(l.cache_miss_bytes)) +
             num_cell(l.sites, human_count(l.sites)) + "</tr>";
    o += "</tbody></table></div>";
    o +=
        R"(<div class="scroll"><table class="sortable" id="call-site-table"><thead><tr><th class="t">call site (innermost first)</th><th>read</th><th>written</th><th>calls</th><th>time in calls</th><th>cache in</th><th class="t">top file</th></tr></thead><tbody>)";
    size_t shown = 0;
    for (const auto& s : cs.sites) {
        if (shown++ == kMaxSites) break;
        std::string stack;
        for (size_t i = 0; i < s.frames.size(); ++i)
            stack += (i ? "<br>&lt; " : "") + html_text(model::frame_text(s.frames[i]));
        o += fmt::format(R"(<tr><td class="t">{}</td>)", stack.empty() ? "[no user stack]" : stack) +
             num_cell(s.read_bytes, human_bytes(s.read_bytes)) +
             num_cell(s.write_bytes, human_bytes(s.write_bytes)) + num_cell(s.calls, human_count(s.calls)) +
             num_cell(s.time_ns, human_ns(s.time_ns)) +
             num_cell(s.cache_miss_bytes, human_bytes(s.cache_miss_bytes)) +
             fmt::format(R"(<td class="t">{}</td></tr>)", html_text(s.top_file));
    }
    o += "</tbody></table></div>";
    for (const auto& n : cs.notes)
        o += fmt::format(R"(<p class="note">No function names: {}</p>)", html_text(n));
    o += "</section>";
}

void processes(std::string& o, const model::Report& r) {
    o += fmt::format(R"(<section id="processes" data-count="{}"><h2>Processes</h2>)", r.processes.size());
    o +=
        R"(<div class="scroll"><table class="sortable" id="process-table"><thead><tr><th>pid</th><th class="t">command</th><th>read</th><th>reads</th><th>written</th><th>writes</th><th>time in calls</th><th>hit ratio</th></tr></thead><tbody>)";
    for (const auto& p : r.processes) {
        const auto& rd = p.ops[IOLENS_OP_READ];
        const auto& wr = p.ops[IOLENS_OP_WRITE];
        const std::string cmd = p.info.cmdline.empty() ? p.info.comm : shell_join(p.info.cmdline);
        o += fmt::format(R"(<tr data-pid="{}"><td data-v="{}">{}</td><td class="t">{}</td>)", p.info.pid,
                         p.info.pid, p.info.pid, html_text(cmd)) +
             num_cell(rd.bytes, human_bytes(rd.bytes)) + num_cell(rd.calls, human_count(rd.calls)) +
             num_cell(wr.bytes, human_bytes(wr.bytes)) + num_cell(wr.calls, human_count(wr.calls)) +
             num_cell(model::total_time_ns(p.ops), human_ns(model::total_time_ns(p.ops))) +
             ratio_cell(p.page_cache.hit_ratio()) + "</tr>";
    }
    o += "</tbody></table></div></section>";
}

}  // namespace

std::string report_to_html(const model::Report& r) {
    std::string o;
    o.reserve(1 << 16);
    o +=
        R"(<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="generator" content="iolens">)";
    o +=
        R"(<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">)";
    o += "<title>iolens report</title><style>";
    o += kStyle;
    o += "</style></head><body>";
    header(o, r);
    summary(o, r);
    findings(o, r);
    timeline(o, r);
    histograms(o, r);
    page_cache(o, r);
    block(o, r);
    ranks(o, r);
    files(o, r);
    call_sites(o, r);
    processes(o, r);
    o += "</main><script>";
    o += kScript;
    o += "</script></body></html>\n";
    return o;
}

}  // namespace iolens::report
