#pragma once
// Turns recording-file chunks into a Report. `record` applies each chunk as it
// writes it and `report` applies the chunks it reads, through this one code
// path, so the live summary and the re-read one cannot drift apart.
#include <functional>
#include <string>

#include "model/report_builder.h"
#include "recording/recording.h"
#include "util/result.h"

namespace iolens::model {

class Replay {
public:
    explicit Replay(BuilderOptions options = {}) : builder_(options) {}

    // Applies one chunk; unknown chunk types are skipped (forward compatible).
    Result<void> apply(const recording::Chunk& chunk);
    Result<void> apply_records(std::span<const std::byte> records);
    // The walk on two threads (ReportBuilder::prepare_ahead): after
    // prepare_ahead(), every chunk given to apply() must first have been given
    // to prepare(), in the same order, which may run on another thread ahead
    // of apply() (read_file_streaming's `prepare`).
    void prepare_ahead() { builder_.prepare_ahead(); }
    void prepare(const recording::Chunk& chunk) {
        if (chunk.type == recording::ChunkType::Records) builder_.prepare_records(chunk.payload);
    }

    bool saw_meta() const { return saw_meta_; }
    bool saw_end() const { return saw_end_; }
    // The report; marks it partial with `partial_reason` if the recording did
    // not end with an END chunk or reading stopped early.
    Report finish(const std::string& partial_reason = "") const;
    // As finish(), for the last report: frees what the builder held as soon
    // as the report no longer needs it (a lower peak); the Replay is spent.
    Report take(const std::string& partial_reason = "");

private:
    Report mark_partial(Report report, const std::string& partial_reason) const;
    ReportBuilder builder_;
    CaptureInfo capture_;
    bool saw_meta_ = false;
    bool saw_end_ = false;
    std::string problem_;  // a malformed chunk seen while applying
};

// Reads a recording file and builds its report. Errors only when the file is
// not a readable recording at all; damage later in the file gives a partial
// report that says so.
// observe, if set, sees every intact chunk too, after the model took it (the
// exporters collect what they need on the same read).
Result<Report> load_recording(const std::string& path, BuilderOptions options = {},
                              const std::function<void(const recording::Chunk&)>& observe = {});

}  // namespace iolens::model
