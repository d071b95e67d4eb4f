#pragma once
// The human view of a Report, for a terminal or a text file. Formatting only:
// every figure shown comes from the model (see DESIGN.md, "one model, many
// renderers"). Lines fit options.width columns (at least 72 are assumed).
#include <cstddef>
#include <ostream>

#include "model/report.h"

namespace iolens::report {

struct TerminalOptions {
    bool color = false;  // ANSI colours; the caller decides (isatty, --color)
    int width = 80;
    size_t top_n = 10;  // rows of the process and file tables
};

void render_terminal(const model::Report& report, std::ostream& out, const TerminalOptions& options = {});

// One BCC-style log2 histogram block (header line + one line per bucket,
// empty buckets between the first and last non-empty one included), as
// render_terminal prints it. unit labels the values ("bytes", "nsecs").
void render_log2_histogram(const model::Histogram& hist, const char* unit, std::ostream& out, int width = 80);

}  // namespace iolens::report
