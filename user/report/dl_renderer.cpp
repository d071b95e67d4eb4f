// The terminal's "Epochs" and "Ranks" sections. Formatting only: every figure
// comes from Report::epochs / ranks / rank_imbalance. Both tables are 79
// columns wide.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "report/terminal_sections.h"
#include "report/text_format.h"

namespace iolens::report::detail {

namespace {

bool has_ranks(const model::Report& r) {
    if (r.ranks.empty()) return false;
    return r.ranks.size() > 1 || r.ranks.front().rank_source != "default" || !r.epochs.empty();
}

// "100 +3": the first root (or pid) and how many more processes.
std::string pids_cell(const model::RankStats& rk) {
    if (rk.pids.empty()) return "-";
    const uint32_t first = rk.root_pids.empty() ? rk.pids.front() : rk.root_pids.front();
    std::string s = std::to_string(first);
    if (rk.pids.size() > 1) s += " +" + std::to_string(rk.pids.size() - 1);
    return s;
}

std::string ratio(std::optional<double> v) { return v ? fmt::format("{:.2f}x", *v) : "-"; }

}  // namespace

void epochs_section(Ctx& c, const model::Report& r) {
    if (r.epochs.empty()) {
        if (r.epochs_note.empty()) return;
        section_title(c, "Epochs");
        print_lines(c, wrap(r.epochs_note, c.width, "  ", "  "));
        return;
    }
    const bool cache = recording::probe_live(r.capture, recording::kProbePageCache);
    section_title(c, "Epochs",
                  r.epochs.front().source == model::EpochSource::Marker
                      ? "(from the program's epoch markers)"
                      : "(inferred from the dataset re-read cycle)");
    // 2 + 6 + 9 + 10 + 7 + 10 + 11 + 10 + 7 + 7 = 79; hit% right after the
    // duration: epoch 1 cold, later epochs warm (or not) is what matters first.
    c.out << "  " << pad_right("epoch", 6) << pad_right("source", 9) << pad_left("duration", 10)
          << c.paint(kBold, pad_left("hit%", 7)) << pad_left("reads", 10) << pad_left("read bytes", 11)
          << pad_left("miss", 10) << pad_left("io%", 7) << pad_left("crit%", 7) << '\n';
    for (const auto& e : r.epochs) {
        const auto& rd = e.ops[IOLENS_OP_READ];
        const std::string label = e.marker_number && *e.marker_number != static_cast<int64_t>(e.index)
                                      ? fmt::format("{} ({})", e.index, *e.marker_number)
                                      : std::to_string(e.index);
        c.out << "  " << pad_right(elide_end(label, 5), 6) << pad_right(model::epoch_source_name(e.source), 9)
              << pad_left(human_ns(e.duration_ns()), 10)
              << c.paint(kBold, pad_left(cache ? percent(e.page_cache.hit_ratio()) : "n/a", 7))
              << pad_left(count_fit(rd.calls, 9), 10) << pad_left(human_bytes(rd.bytes), 11)
              << pad_left(cache ? human_bytes(e.page_cache.miss_bytes) : "n/a", 10)
              << pad_left(percent(e.io_time_share()), 7) << pad_left(percent(e.critical_io_share()), 7)
              << '\n';
    }
    if (const uint64_t steps = model::steps_marked(r))
        c.out << "  " << human_count(steps) << " steps marked\n";
}

void ranks_section(Ctx& c, const model::Report& r) {
    if (!has_ranks(r)) return;
    const bool cache = recording::probe_live(r.capture, recording::kProbePageCache);
    section_title(c, "Ranks", "(io: any thread in file I/O; crit: the main thread waited on it)");
    // 2 + 7 + 12 + 10 + 11 + 10 + 7 + 7 + 7 = 73. In a report of many nodes'
    // recordings the node replaces the pids (pids repeat across nodes).
    const bool by_node = !r.nodes.empty();
    c.out << "  " << pad_left("rank", 7) << "  " << pad_right(by_node ? "node" : "pids", 10)
          << pad_left("wall", 10) << pad_left("read bytes", 11) << pad_left("io time", 10)
          << pad_left("io%", 7) << pad_left("crit%", 7) << pad_left("hit%", 7) << '\n';
    for (const auto& rk : r.ranks) {
        c.out << "  " << pad_left(std::to_string(rk.rank), 7) << "  "
              << pad_right(elide_end(by_node ? rk.node : pids_cell(rk), 10), 10)
              << pad_left(human_ns(rk.wall_ns), 10) << pad_left(human_bytes(rk.ops[IOLENS_OP_READ].bytes), 11)
              << pad_left(human_ns(rk.io_time_ns), 10) << pad_left(percent(rk.io_time_share()), 7)
              << pad_left(percent(rk.critical_io_share()), 7)
              << pad_left(cache ? percent(rk.page_cache.hit_ratio()) : "n/a", 7) << '\n';
    }
    if (r.ranks.size() == 1 && r.ranks.front().rank_source == "default")
        c.out << "  (no rank variables found: one process tree, shown as rank 0)\n";
    if (r.rank_imbalance) {
        const auto& im = *r.rank_imbalance;
        const std::string line =
            fmt::format("straggler: rank {}, io time {} ({} the mean); read bytes {} to {} ({} the mean)",
                        im.straggler_rank, human_ns(im.straggler_io_time_ns),
                        ratio(im.io_time_ns.max_over_mean), human_bytes(im.read_bytes.min),
                        human_bytes(im.read_bytes.max), ratio(im.read_bytes.max_over_mean));
        print_lines(c, wrap(line, c.width, "  ", "    "));
    }
}

// "0-3", "0,2,5", "-": a node's ranks, short.
static std::string ranks_cell(const std::vector<int64_t>& ranks) {
    if (ranks.empty()) return "-";
    std::vector<int64_t> v(ranks);
    std::sort(v.begin(), v.end());
    if (v.back() - v.front() + 1 == static_cast<int64_t>(v.size()) && v.size() > 1)
        return fmt::format("{}-{}", v.front(), v.back());
    std::string s;
    for (int64_t k : v) s += (s.empty() ? "" : ",") + std::to_string(k);
    return s;
}

void nodes_section(Ctx& c, const model::Report& r) {
    if (r.nodes.empty()) return;
    const bool cache = recording::probe_live(r.capture, recording::kProbePageCache);
    section_title(
        c, "Nodes",
        fmt::format("({} recordings merged; times aligned by their clock anchors)", r.nodes.size()));
    // 2 + 14 + 8 + 11 + 10 + 10 + 7 + 11 + 6 = 79
    c.out << "  " << pad_right("host", 14) << pad_right("ranks", 8) << pad_left("read bytes", 11)
          << pad_left("io time", 10) << pad_left("crit", 10) << c.paint(kBold, pad_left("hit%", 7))
          << pad_left("device rd", 11) << pad_left("lost", 6) << '\n';
    for (const auto& n : r.nodes)
        c.out << "  " << pad_right(elide_end(n.host, 13), 14)
              << pad_right(elide_end(ranks_cell(n.ranks), 7), 8)
              << pad_left(human_bytes(n.totals[IOLENS_OP_READ].bytes), 11)
              << pad_left(human_ns(n.io_time_ns), 10) << pad_left(human_ns(n.critical_io_ns), 10)
              << c.paint(kBold, pad_left(cache ? percent(n.page_cache.hit_ratio()) : "n/a", 7))
              << pad_left(human_bytes(n.device_read_bytes), 11) << pad_left(count_fit(n.lost_events, 5), 6)
              << '\n';
}

}  // namespace iolens::report::detail
