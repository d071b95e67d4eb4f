// The terminal's "Page cache" section: the overall figures, then the
// processes and files that brought the most into the cache.
#include <string>
#include <vector>

#include "report/terminal_sections.h"
#include "report/text_format.h"

namespace iolens::report::detail {

namespace {

using model::PageCacheStats;

// Two "label value" pairs per line, so the eleven figures take six lines.
void figures(Ctx& c, const PageCacheStats& s, bool blocking) {
    const std::string na = "n/a";
    const std::vector<std::pair<std::string, std::string>> items = {
        {"hit ratio", percent(s.hit_ratio())},
        {"read from cache", human_bytes(s.hit_bytes)},
        {"brought in by reads", human_bytes(s.miss_bytes)},
        {"of it readahead", human_bytes(s.readahead_bytes)},
        {"faulted in (mmap)", human_bytes(s.fault_bytes)},
        {"major faults", human_count(s.major_faults)},
        {"evicted", human_bytes(s.evicted_bytes)},
        {"evicted unread", human_bytes(s.readahead_unused_bytes)},   // read ahead, never read
        {"not read by end", human_bytes(s.readahead_unread_bytes)},  // read ahead, still cached
        {"blocked in reads", blocking ? human_ns(s.blocked_ns) : na},
        {"read by O_DIRECT", human_bytes(s.direct_bytes)},  // past the cache, from the device
    };
    for (size_t i = 0; i < items.size(); i += 2) {
        std::string line = "  " + pad_right(items[i].first, 20) + pad_left(items[i].second, 10);
        if (i + 1 < items.size())
            line += "    " + pad_right(items[i + 1].first, 20) + pad_left(items[i + 1].second, 10);
        c.out << line << '\n';
    }
}

void process_rows(Ctx& c, const model::Report& r, bool blocking) {
    const auto top = model::top_processes_by_cache_in(r, c.top_n);
    if (top.empty()) return;
    c.out << "  by process (" << human_count(top.size()) << ", most brought in first)\n";
    // 2 + 8 + 15 + 7 + 10 + 10 + 10 + 8 + 10 = 80
    c.out << "  " << pad_left("pid", 7) << ' ' << pad_right("comm", 15) << pad_left("hit%", 7)
          << pad_left("read in", 10) << pad_left("readahead", 10) << pad_left("faulted", 10)
          << pad_left("major", 8) << pad_left("blocked", 10) << '\n';
    for (const auto* p : top) {
        const auto& s = p->page_cache;
        c.out << "  " << pad_left(std::to_string(p->info.pid), 7) << ' '
              << pad_right(elide_end(p->info.comm, 15), 15) << pad_left(percent(s.hit_ratio()), 7)
              << pad_left(human_bytes(s.miss_bytes), 10) << pad_left(human_bytes(s.readahead_bytes), 10)
              << pad_left(human_bytes(s.fault_bytes), 10) << pad_left(count_fit(s.major_faults, 7), 8)
              << pad_left(blocking ? human_ns(s.blocked_ns) : "n/a", 10) << '\n';
    }
}

void file_rows(Ctx& c, const model::Report& r) {
    const auto top = model::top_files_by_cache_in(r, c.top_n);
    if (top.empty()) return;
    const size_t path_w = c.width - 2 - 7 - 10 - 10 - 10;
    c.out << "  by file (" << human_count(top.size()) << ", most brought in first)\n";
    c.out << "  " << pad_right("path", path_w) << pad_left("hit%", 7) << pad_left("read in", 10)
          << pad_left("faulted", 10) << pad_left("evicted", 10) << '\n';
    for (const auto* f : top) {
        const auto& s = f->page_cache;
        c.out << "  " << pad_right(elide_middle(f->path, path_w - 1), path_w)
              << pad_left(percent(s.hit_ratio()), 7) << pad_left(human_bytes(s.miss_bytes), 10)
              << pad_left(human_bytes(s.fault_bytes), 10) << pad_left(human_bytes(s.evicted_bytes), 10)
              << '\n';
    }
}

}  // namespace

void page_cache_section(Ctx& c, const model::Report& r) {
    section_title(c, "Page cache", "(buffered reads and file mappings of the traced processes)");
    if (!recording::probe_live(r.capture, recording::kProbePageCache)) {
        not_available(c, r.capture, recording::kProbePageCache);
        return;
    }
    const bool blocking = recording::probe_live(r.capture, recording::kProbeBlocking);
    figures(c, r.page_cache, blocking);
    process_rows(c, r, blocking);
    file_rows(c, r);
}

}  // namespace iolens::report::detail
