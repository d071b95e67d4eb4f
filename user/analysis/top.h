#pragma once
// `iolens top`: one frame of the live view, computed from two snapshots of
// the live model (the Report of everything recorded so far, now and one
// interval ago): rates over the interval and totals so far. The renderers
// (report/top_renderer.h) print a frame and compute nothing.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/report.h"

namespace iolens::analysis {

// What the table lists (keys r, p, f, d in the full-screen view).
enum class TopView { Ranks, Processes, Files, Devices };
const char* top_view_name(TopView v);  // "ranks", "processes", "files", "devices"

struct TopRow {
    std::string name;  // "rank 0", "1234 python3", a path, "vda"
    // Over the interval, per second.
    double read_bps = 0, write_bps = 0, calls_ps = 0;
    // Since the start.
    uint64_t read_bytes = 0, write_bytes = 0, calls = 0;
    // Per view: ranks: "epoch 2", stall share over the interval; devices:
    // p99 latency of reads so far; files/processes: empty.
    std::string note;
    std::optional<double> stall_share;  // ranks: critical I/O / wall over the interval
};

struct TopFrame {
    uint64_t elapsed_ns = 0;   // since tracing went live
    uint64_t interval_ns = 0;  // between the two snapshots
    uint64_t records = 0;
    uint64_t lost = 0;
    // The job over the interval, per second; and exactly, over the interval
    // and since the start (the intervals of a run add up to its totals).
    double read_bps = 0, write_bps = 0, calls_ps = 0;
    uint64_t interval_read_bytes = 0, interval_write_bytes = 0, interval_calls = 0;
    uint64_t read_bytes = 0, write_bytes = 0, calls = 0;
    // Page-cache hit ratio over the interval (hits / everything read or
    // faulted in it); empty when nothing was.
    std::optional<double> hit_ratio;
    struct Device {
        std::string name;
        double read_bps = 0, write_bps = 0;
        uint64_t read_p99_ns = 0;  // so far
    };
    std::vector<Device> devices;
    TopView view = TopView::Ranks;
    std::vector<TopRow> rows;           // of the view: busiest over the interval first, then totals
    std::vector<std::string> findings;  // "high io_stall: title", as of now
    double recorder_cpu_share = 0;      // iolens's own CPU over the interval, of one CPU
};

// prev: the snapshot one interval ago (an empty Report for the first frame).
TopFrame make_top_frame(const model::Report& prev, const model::Report& cur, uint64_t interval_ns,
                        TopView view);

}  // namespace iolens::analysis
