#pragma once
// The live model `iolens top` and `record --live` share: every chunk the
// recording session writes is applied to a model::Replay (the model `report`
// builds with), and a snapshot of it is taken when asked; a frame compares
// the last two snapshots (analysis::make_top_frame).
#include <cstdint>
#include <span>
#include <string>

#include "analysis/top.h"
#include "capture/record_session.h"
#include "model/replay.h"

namespace iolens::cli {

class LiveModel {
public:
    void on_chunk(recording::ChunkType type, std::span<const std::byte> payload);
    // Takes a snapshot at now_ns; the frame of it against the previous one.
    // status: the session's (elapsed, events, losses); without it (after the
    // recording ended) those come from the END chunk.
    const analysis::TopFrame& snapshot(uint64_t now_ns, const capture::RecordOptions::LiveStatus* status,
                                       analysis::TopView view);
    // The same two snapshots in another view.
    const analysis::TopFrame& reframe(analysis::TopView view);
    void start(uint64_t now_ns);
    bool started() const { return started_; }
    uint64_t last_snapshot_ns() const { return last_ns_; }
    bool has_frame() const { return has_frame_; }
    const analysis::TopFrame& frame() const { return frame_; }
    const std::string& problem() const { return problem_; }

private:
    model::Replay replay_;
    model::Report prev_, cur_;
    analysis::TopFrame frame_;
    bool started_ = false, has_frame_ = false;
    uint64_t last_ns_ = 0, last_cpu_ = 0;
    std::string problem_;
};

// "iolens: 3.12 s, read 145 MiB/s, write 0 B/s, 835 calls/s, page-cache hit
// 100.0%, vda 0 B/s, 0 lost": the header of a frame as one line.
std::string live_line(const analysis::TopFrame& frame);

}  // namespace iolens::cli
