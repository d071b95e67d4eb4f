#pragma once
// `iolens export`: a recording's event stream as a timeline trace for other
// tools (docs/export.md). Two reads of the recording: the first builds the
// model (model/replay.h) for what only the whole recording says (ranks,
// epochs, process names, file paths); the second streams the records through
// the same decoder (model/record_walk.h) and hands each event, with that
// attribution, to the format's writer. Memory stays flat in the events: only
// the model and the counters' time buckets are held.
#include <cstdint>
#include <string>

#include "model/report_builder.h"
#include "util/result.h"

namespace iolens::exports {

enum class Format { Perfetto, Chrome, DfTracer };
// "perfetto", "chrome", "dftracer".
const char* format_name(Format f);
// The output name when none is given: iolens.pftrace, iolens.json, iolens.pfw.gz.
std::string default_output(Format f);

struct ExportOptions {
    Format format = Format::Perfetto;
    std::string output;
    bool force = false;  // replace an existing file (util/output_file.h)
    model::BuilderOptions builder;
    // Width of the counters' time buckets (page-cache hit ratio, block
    // queue depth and throughput).
    uint64_t counter_period_ns = 100'000'000;
};

struct ExportOutcome {
    bool partial = false;  // the recording was partial: what it had was exported
    std::string partial_reason;
    bool gzip = false;       // the output name ends in .gz
    uint64_t events = 0;     // trace events written (slices, counters samples, metadata)
    uint64_t bytes = 0;      // bytes of the file
    uint64_t raw_bytes = 0;  // before compression
};

// Errors when the recording is not readable at all or the output cannot be
// written (nothing is left behind then); a partial recording is exported as
// far as it goes, with partial set.
Result<ExportOutcome> export_recording(const std::string& input, const ExportOptions& options);

// Past this many bytes of JSON, chrome://tracing fails and the Perfetto UI
// struggles (docs/export.md): `export` warns.
inline constexpr uint64_t kChromeJsonWarnBytes = 256ull << 20;

}  // namespace iolens::exports
