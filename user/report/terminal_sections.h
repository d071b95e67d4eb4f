#pragma once
// Internal to the terminal view: the drawing context its section files share
// (terminal_renderer.cpp, page_cache_renderer.cpp, block_renderer.cpp).
#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "model/report.h"

namespace iolens::report::detail {

// ANSI SGR codes, applied after padding so they never count as columns.
inline constexpr const char* kBold = "1";
inline constexpr const char* kAlert = "1;31";  // bold red: data loss, partial report
inline constexpr const char* kWarn = "33";     // yellow: degraded output
inline constexpr const char* kRed = "31";

class Painter {
public:
    explicit Painter(bool on) : on_(on) {}
    std::string operator()(const char* sgr, const std::string& text) const {
        return on_ ? "\x1b[" + std::string(sgr) + "m" + text + "\x1b[0m" : text;
    }

private:
    bool on_;
};

struct Ctx {
    std::ostream& out;
    Painter paint;
    size_t width;
    size_t top_n;
};

void print_lines(Ctx& c, const std::vector<std::string>& lines, const char* sgr = nullptr);
// A section title line, after a blank line.
void section_title(Ctx& c, const std::string& title, const std::string& note = "");
// "97.3%", or "-" when there is nothing to divide.
std::string percent(std::optional<double> fraction);
// The one indented line shown instead of a section whose probe was not live.
void not_available(Ctx& c, const recording::CaptureInfo& cap, std::string_view probe);

void page_cache_section(Ctx& c, const model::Report& r);
void block_section(Ctx& c, const model::Report& r);
// dl_renderer.cpp: the rank table and straggler line (when the job has ranks
// or epochs), and the epoch table (when there are epochs).
void ranks_section(Ctx& c, const model::Report& r);
// A report of many nodes' recordings: one row per node.
void nodes_section(Ctx& c, const model::Report& r);
void epochs_section(Ctx& c, const model::Report& r);
// call_sites_renderer.cpp: the calls by user stack (record --stacks only).
void call_sites_section(Ctx& c, const model::Report& r);

}  // namespace iolens::report::detail
