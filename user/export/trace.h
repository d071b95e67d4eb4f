#pragma once
// What the exporters share: the events of a recording as they come (a view of
// each record with the model's attribution: rank, epoch, file path, the
// read's page-cache split), and the interface each format's writer has.
// exporter.cpp drives them; docs/export.md describes the formats.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "export/out_stream.h"
#include "iolens/abi.h"
#include "model/attribution.h"
#include "model/page_cache.h"
#include "model/report.h"

namespace iolens::exports {

// What every writer knows before the first event: the model of the whole
// recording (processes, ranks, epochs) and the clock.
struct TraceContext {
    const model::Report& report;
    const model::EventAttribution& attribution;
    // The event clock is CLOCK_MONOTONIC; the recording stores the realtime
    // at its start: realtime = t - mono_start + unix_start.
    uint64_t mono_start = 0;
    uint64_t unix_start = 0;
    uint64_t to_unix_ns(uint64_t mono) const { return mono - mono_start + unix_start; }
    // "rank 3" / "no rank" for a rank index (-1: none).
    std::string rank_label(long rank) const;
    // "python (1234)": comm and pid, for track names.
    std::string process_label(uint32_t pid) const;
    // The process's first ProcessInfo in the report, or null.
    const model::ProcessInfo* process(uint32_t pid) const;
};

// One file I/O call or async request (a syscall record).
struct CallView {
    const iolens_syscall_rec& r;
    std::string_view syscall;               // "pread64"; "io_submit"/"io_uring_enter" for requests
    std::string_view dftracer_name;         // DFTracer's name for it ("pread"): syscall_names.h
    int path = IOLENS_PATH_SYSCALL;         // enum iolens_path
    const std::string* file = nullptr;      // its path (or "<dev 8:1 ino 12>"); null: no file
    uint64_t file_hash = 0;                 // of *file (FNV-1a 64); 0: no file
    std::optional<model::CacheRead> cache;  // a counted read's page-cache split
    long rank = -1;                         // index in report.ranks
    long epoch = -1;                        // index in report.epochs
    // record --stacks: the call's call site, innermost frames first
    // (model::CallSiteBuilder::charge), and its FNV-1a 64; null: none.
    const std::string* call_site = nullptr;
    uint64_t call_site_hash = 0;
    bool async() const { return path == IOLENS_PATH_AIO || path == IOLENS_PATH_IO_URING; }
};

struct CounterSample {
    uint64_t ts = 0;  // monotonic
    double value = 0;
};
// A counter: on a rank's track (rank >= 0) or a block device's (dev).
struct CounterSeries {
    std::string name;
    long rank = -1;
    uint32_t dev = 0;
    std::vector<CounterSample> samples;  // by time
};

class TraceWriter {
public:
    virtual ~TraceWriter() = default;
    // Tracks: ranks with their epochs, processes.
    virtual void begin() = 0;
    virtual void call(const CallView& c) = 0;
    virtual void offcpu(const iolens_offcpu_rec& r, long rank) = 0;
    virtual void marker(const iolens_marker_rec& r, std::string_view text, long rank) = 0;
    // Once, after the last event: every counter, on a rank or a block device.
    virtual void counters(const std::vector<CounterSeries>& series) = 0;
    virtual void end() = 0;
    uint64_t events() const { return events_; }

protected:
    uint64_t events_ = 0;
};

std::unique_ptr<TraceWriter> make_chrome_writer(const TraceContext& ctx, OutStream& out);
std::unique_ptr<TraceWriter> make_dftracer_writer(const TraceContext& ctx, OutStream& out);
std::unique_ptr<TraceWriter> make_perfetto_writer(const TraceContext& ctx, OutStream& out);

// Text for a JSON string, quotes excluded: escapes, and bytes that are not
// UTF-8 replaced by U+FFFD (trace viewers refuse invalid UTF-8).
void append_json_string(std::string& out, std::string_view s);
// FNV-1a, 64 bits (DFTracer's file and host hashes: unique, any algorithm).
uint64_t fnv1a64(std::string_view s);

}  // namespace iolens::exports
