#pragma once
// The text of one `iolens top` frame (analysis::TopFrame): the header, the
// table of the chosen view and the findings, cut to the terminal's size in
// the full-screen view; whole in --batch, one block per interval.
#include <cstddef>
#include <string>
#include <vector>

#include "analysis/top.h"

namespace iolens::report {

struct TopLayout {
    size_t width = 80;
    size_t height = 24;  // lines; 0: no limit (batch)
    bool batch = false;
    size_t batch_rows = 20;  // table rows per block in batch mode
};

std::vector<std::string> top_lines(const analysis::TopFrame& frame, const TopLayout& layout);

}  // namespace iolens::report
