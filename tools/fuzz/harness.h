#pragma once
// The path every fuzz target drives: recording bytes -> the reader
// (recording/) -> replay into the model -> findings (analysis/summarize.h) ->
// the terminal and JSON renderers, into memory. Nothing is written to disk:
// the bytes go into one memfd, read back through /proc/self/fd/N, so the
// reader's own file code (buffered reads, pread, fstat while
// resynchronising) is what runs.
#include <cstddef>
#include <cstdint>
#include <span>

#include "model/report_builder.h"

namespace iolens::fuzz {

struct RunOptions {
    model::BuilderOptions builder;
    bool color = false;  // the terminal renderer's ANSI colours
    int width = 80;
    size_t top_n = 10;
};

// Summarizes `bytes` as a recording and renders the report both ways.
// Errors (not a recording) are fine; a crash, leak or UB is the finding.
void run_recording(std::span<const uint8_t> bytes, const RunOptions& options);

}  // namespace iolens::fuzz
