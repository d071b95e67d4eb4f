#include "report/top_renderer.h"

#include <fmt/format.h>

#include <cmath>

#include "report/text_format.h"

namespace iolens::report {

namespace {

std::string rate(double bps) { return human_bytes(static_cast<uint64_t>(std::llround(bps))) + "/s"; }

std::string pct(const std::optional<double>& share) {
    return share ? fmt::format("{:.1f}%", *share * 100) : std::string("-");
}

}  // namespace

std::vector<std::string> top_lines(const analysis::TopFrame& f, const TopLayout& layout) {
    std::vector<std::string> lines;
    lines.push_back(fmt::format("iolens top - {} traced, interval {}, {} events, {} lost, iolens CPU {:.1f}%",
                                human_ns(f.elapsed_ns), human_ns(f.interval_ns), human_count(f.records),
                                human_count(f.lost), f.recorder_cpu_share * 100));
    lines.push_back(fmt::format(
        "I/O   read {}  write {}  calls {}/s  page-cache hit {}", rate(f.read_bps), rate(f.write_bps),
        human_count(static_cast<uint64_t>(std::llround(f.calls_ps))), pct(f.hit_ratio)));
    for (const auto& d : f.devices)
        lines.push_back(fmt::format("dev   {}  read {}  write {}  read p99 {}", printable(d.name),
                                    rate(d.read_bps), rate(d.write_bps),
                                    d.read_p99_ns ? human_ns(d.read_p99_ns) : "-"));
    if (layout.batch)  // exact, for logs and scripts: the intervals add up to the totals
        lines.push_back(
            fmt::format("interval read_bytes={} write_bytes={} calls={}; total read_bytes={} "
                        "write_bytes={} calls={}",
                        f.interval_read_bytes, f.interval_write_bytes, f.interval_calls, f.read_bytes,
                        f.write_bytes, f.calls));
    if (!layout.batch)
        lines.push_back(fmt::format("view: {}   keys: r ranks, p processes, f files, d devices, q quit",
                                    analysis::top_view_name(f.view)));
    lines.emplace_back();
    const bool ranks = f.view == analysis::TopView::Ranks;
    const char* first = ranks                                    ? "RANK"
                        : f.view == analysis::TopView::Processes ? "PROCESS"
                        : f.view == analysis::TopView::Files     ? "FILE"
                                                                 : "DEVICE";
    // Paths get the width the figures leave (the ends of a path say the most).
    const size_t name_w = f.view != analysis::TopView::Files ? 28
                          : layout.batch                     ? 60
                                         : std::max<size_t>(28, layout.width > 78 ? layout.width - 78 : 0);
    const auto row = [&](const std::string& name, const std::string& rd, const std::string& wr,
                         const std::string& calls, const std::string& trd, const std::string& twr,
                         const std::string& tcalls, const std::string& note) {
        const std::string n = elide_middle(name, name_w);
        return n + std::string(name_w - std::min(name_w, display_width(n)), ' ') +
               fmt::format(" {:>12} {:>12} {:>9} {:>10} {:>10} {:>11}  {}", rd, wr, calls, trd, twr, tcalls,
                           note);
    };
    lines.push_back(row(first, "READ/s", "WRITE/s",
                        ranks || f.view != analysis::TopView::Devices ? "CALLS/s" : "REQ/s", "READ",
                        "WRITTEN", f.view == analysis::TopView::Devices ? "REQUESTS" : "CALLS",
                        ranks ? "EPOCH, STALL" : ""));
    size_t room = layout.batch ? layout.batch_rows : f.rows.size();
    if (!layout.batch && layout.height) {
        // The table's title is in lines; after the rows: "... N more", a
        // blank line, "findings:" and up to 5 findings.
        const size_t used = lines.size() + 3 + std::min<size_t>(f.findings.size(), 5);
        room = layout.height > used ? layout.height - used : 1;
    }
    size_t shown = 0;
    for (const auto& r : f.rows) {
        if (shown++ >= room) break;
        std::string note = r.note;
        if (ranks) note += (note.empty() ? "" : ", ") + std::string("stall ") + pct(r.stall_share);
        lines.push_back(row(printable(r.name), rate(r.read_bps), rate(r.write_bps),
                            human_count(static_cast<uint64_t>(std::llround(r.calls_ps))),
                            human_bytes(r.read_bytes), human_bytes(r.write_bytes), human_count(r.calls),
                            note));
    }
    if (f.rows.size() > room) lines.push_back(fmt::format("  ... {} more", f.rows.size() - room));
    lines.emplace_back();
    lines.push_back(f.findings.empty() ? "findings: none so far" : "findings:");
    size_t nf = 0;
    for (const auto& x : f.findings) {
        if (!layout.batch && nf++ >= 5) break;
        lines.push_back("  " + printable(x));
    }
    for (auto& l : lines) {
        while (!l.empty() && l.back() == ' ') l.pop_back();
        if (!layout.batch && layout.width && display_width(l) > layout.width) l = elide_end(l, layout.width);
    }
    if (!layout.batch && layout.height && lines.size() > layout.height) lines.resize(layout.height);
    return lines;
}

}  // namespace iolens::report
