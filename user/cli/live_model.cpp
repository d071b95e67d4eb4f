#include "cli/live_model.h"

#include <fmt/format.h>
#include <sys/resource.h>

#include <cmath>

#include "analysis/findings.h"
#include "capture/node.h"
#include "util/units.h"

namespace iolens::cli {

namespace {

uint64_t cpu_ns_self() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    const auto ns = [](const timeval& t) {
        return static_cast<uint64_t>(t.tv_sec) * 1'000'000'000ull +
               static_cast<uint64_t>(t.tv_usec) * 1000ull;
    };
    return ns(ru.ru_utime) + ns(ru.ru_stime);
}

std::string rate(double bps) { return human_bytes(static_cast<uint64_t>(std::llround(bps))) + "/s"; }

}  // namespace

void LiveModel::on_chunk(recording::ChunkType type, std::span<const std::byte> payload) {
    recording::Chunk c{type, std::vector<std::byte>(payload.begin(), payload.end())};
    if (auto r = replay_.apply(c); !r) problem_ = r.error().message;
}

void LiveModel::start(uint64_t now_ns) {
    started_ = true;
    last_ns_ = now_ns;
    last_cpu_ = cpu_ns_self();
}

const analysis::TopFrame& LiveModel::snapshot(uint64_t now_ns,
                                              const capture::RecordOptions::LiveStatus* status,
                                              analysis::TopView view) {
    model::Report next = replay_.finish();
    analysis::add_findings(next);
    // The recording names the disks at its end: until then, from sysfs.
    for (auto& d : next.block_devices)
        if (d.name.empty() || d.name.find(':') != std::string::npos)
            d.name = capture::block_device_name(d.dev);
    const uint64_t cpu = cpu_ns_self();
    const uint64_t interval = now_ns - last_ns_;
    prev_ = std::move(cur_);
    cur_ = std::move(next);
    frame_ = analysis::make_top_frame(prev_, cur_, interval, view);
    frame_.elapsed_ns = status ? status->now_ns - status->attach_ns : cur_.capture.duration_ns;
    frame_.records = status ? status->records : cur_.capture.events;
    frame_.lost = status ? (status->lost ? status->lost() : 0) : cur_.capture.lost_events;
    frame_.recorder_cpu_share =
        interval ? static_cast<double>(cpu - last_cpu_) / static_cast<double>(interval) : 0;
    last_cpu_ = cpu;
    last_ns_ = now_ns;
    has_frame_ = true;
    return frame_;
}

const analysis::TopFrame& LiveModel::reframe(analysis::TopView view) {
    auto f = analysis::make_top_frame(prev_, cur_, frame_.interval_ns, view);
    f.elapsed_ns = frame_.elapsed_ns;
    f.records = frame_.records;
    f.lost = frame_.lost;
    f.recorder_cpu_share = frame_.recorder_cpu_share;
    frame_ = std::move(f);
    return frame_;
}

std::string live_line(const analysis::TopFrame& f) {
    std::string s = fmt::format("iolens: {} traced, read {}, write {}, {} calls/s, page-cache hit {}",
                                human_ns(f.elapsed_ns), rate(f.read_bps), rate(f.write_bps),
                                human_count(static_cast<uint64_t>(std::llround(f.calls_ps))),
                                f.hit_ratio ? fmt::format("{:.1f}%", *f.hit_ratio * 100) : std::string("-"));
    for (const auto& d : f.devices) s += fmt::format(", {} {}", d.name, rate(d.read_bps + d.write_bps));
    s += fmt::format(", {} lost", human_count(f.lost));
    return s;
}

}  // namespace iolens::cli
