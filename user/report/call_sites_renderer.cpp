// The terminal's "Call sites" section (record --stacks): the calls by the
// user stack that issued them (model/call_sites.h).
#include <fmt/format.h>

#include <string>
#include <vector>

#include "report/terminal_sections.h"
#include "report/text_format.h"

namespace iolens::report::detail {

namespace {

// Frames shown per call site, innermost first (--folded has them all).
constexpr size_t kFramesShown = 6;

}  // namespace

void call_sites_section(Ctx& c, const model::Report& r) {
    if (!r.call_sites) return;
    const auto& cs = *r.call_sites;
    const uint64_t all = cs.calls + cs.calls_without;
    section_title(c, "Call sites",
                  fmt::format("(--stacks={}: {} stacks; {} of {} calls charged to one)", cs.spec,
                              human_count(cs.stacks), human_count(cs.calls), human_count(all)));
    if (cs.sites.empty()) {
        print_lines(
            c, wrap("No stacks were taken (no file-I/O call by the syscall path, or the stacks were lost).",
                    c.width, "  ", "  "));
        return;
    }
    // Which library did the I/O: the innermost module outside the C and C++
    // runtimes.
    c.out << "  by library (the innermost frame outside libc, the loader and libstdc++):\n";
    c.out << "  " << pad_left("bytes", 10) << pad_left("calls", 12) << pad_left("time", 10)
          << pad_left("cache in", 10) << "  library\n";
    size_t libs = 0;
    for (const auto& l : cs.libraries) {
        if (libs++ == c.top_n) break;
        const size_t left = c.width > 46 + 12 ? c.width - 46 : 12;
        c.out << "  " << pad_left(human_bytes(l.read_bytes + l.write_bytes), 10)
              << pad_left(count_fit(l.calls, 11), 12) << pad_left(human_ns(l.time_ns), 10)
              << pad_left(human_bytes(l.cache_miss_bytes), 10) << "  "
              << elide_middle(l.module.empty() ? std::string("(the runtimes only)")
                                               : l.module.substr(l.module.rfind('/') + 1),
                              left)
              << '\n';
    }
    c.out << "  by call site:\n";
    c.out << "  " << pad_left("bytes", 10) << pad_left("calls", 12) << pad_left("time", 10)
          << pad_left("cache in", 10) << "  file\n";
    size_t shown = 0;
    for (const auto& s : cs.sites) {
        if (shown++ == c.top_n) break;
        std::string file = s.top_file.empty() ? std::string("-") : s.top_file;
        if (s.files > 1) file += fmt::format(" (+{})", human_count(s.files - 1));
        const size_t left = c.width > 46 + 12 ? c.width - 46 : 12;
        c.out << "  " << pad_left(human_bytes(s.read_bytes + s.write_bytes), 10)
              << pad_left(count_fit(s.calls, 11), 12) << pad_left(human_ns(s.time_ns), 10)
              << pad_left(human_bytes(s.cache_miss_bytes), 10) << "  " << elide_middle(file, left) << '\n';
        // The stack, innermost first, on the lines below.
        std::vector<std::string> frames;
        for (size_t i = 0; i < s.frames.size() && i < kFramesShown; ++i)
            frames.push_back(model::frame_text(s.frames[i]));
        if (s.frames.size() > kFramesShown)
            frames.push_back(fmt::format("({} more)", s.frames.size() - kFramesShown));
        if (frames.empty()) frames.push_back("[no user stack]");
        for (size_t i = 0; i < frames.size(); ++i)
            print_lines(c, wrap(frames[i], c.width, i ? "      < " : "      ", "          "));
    }
    if (cs.sites.size() > c.top_n)
        print_lines(c, wrap(fmt::format("{} more call sites (iolens report --folded lists them all).",
                                        human_count(cs.sites.size() - c.top_n)),
                            c.width, "  ", "  "));
    for (const auto& n : cs.notes)
        print_lines(c, wrap("no function names: " + n, c.width, "  ", "    "), kWarn);
}

}  // namespace iolens::report::detail
