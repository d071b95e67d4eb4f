// The terminal's "Block devices" section: a line of totals per device and
// direction, BCC biolatency-style histograms of queue and service time side by
// side, the request sizes, and the share each tracked process submitted.
#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/terminal_renderer.h"
#include "report/terminal_sections.h"
#include "report/text_format.h"

namespace iolens::report::detail {

namespace {

using model::BlockDevice;
using model::BlockStats;
using model::Histogram;

// The power-of-two bucket range [first, last] holding every sample of the
// given histograms, or nullopt if all are empty.
std::optional<std::pair<int, int>> bucket_range(std::initializer_list<const Histogram*> hists) {
    int first = Histogram::kBuckets, last = -1;
    for (const auto* h : hists)
        for (const auto& b : h->buckets()) {
            first = std::min(first, Histogram::bucket_index(b.lo));
            last = std::max(last, Histogram::bucket_index(b.lo));
        }
    if (last < 0) return std::nullopt;
    return std::pair{first, last};
}

// One log2 histogram over the buckets [range.first, range.second], as lines
// of exactly `width` columns so that two can stand side by side with row i
// the same time band in both. Bounds are shown in human time units: the
// buckets are powers of two of nanoseconds, which are not whole microseconds,
// and "131 us" reads better than "131072". "lo -> hi" holds lo <= t < hi.
std::vector<std::string> time_histogram_column(const Histogram& h, std::pair<int, int> range,
                                               const std::string& title, const std::string& if_empty,
                                               size_t width) {
    std::vector<std::string> out{pad_right(elide_end(title, width), width)};
    if (h.count() == 0) {
        for (const auto& l : wrap(if_empty, width, "", "")) out.push_back(pad_right(l, width));
        return out;
    }
    size_t label_w = 4, count_w = 5;
    uint64_t max_count = 0;
    for (int i = range.first; i <= range.second; ++i) {
        label_w = std::max(
            {label_w, human_ns(Histogram::bucket_lo(i)).size(), human_ns(Histogram::bucket_hi(i)).size()});
        count_w = std::max(count_w, std::to_string(h.bucket_count(i)).size());
        max_count = std::max(max_count, h.bucket_count(i));
    }
    const size_t fixed = 2 * label_w + 4 + 3 + count_w + 2 + 1;  // all but the bar
    const size_t bar = width > fixed + 3 ? width - fixed : 3;
    // "distribution" only where the bar is wide enough to sit under it.
    out.push_back(pad_right(pad_left("time", label_w) + "    " + std::string(label_w, ' ') + " : " +
                                pad_right("count", count_w) + (bar + 2 >= 13 ? " distribution" : ""),
                            width));
    for (int i = range.first; i <= range.second; ++i) {
        const uint64_t n = h.bucket_count(i);
        const auto stars = std::min(
            bar, static_cast<size_t>(std::llround(static_cast<double>(n) / static_cast<double>(max_count) *
                                                  static_cast<double>(bar))));
        out.push_back(pad_right(pad_left(human_ns(Histogram::bucket_lo(i)), label_w) + " -> " +
                                    pad_right(human_ns(Histogram::bucket_hi(i)), label_w) + " : " +
                                    pad_right(std::to_string(n), count_w) + " |" + std::string(stars, '*') +
                                    std::string(bar - stars, ' ') + "|",
                                width));
    }
    return out;
}

void side_by_side(Ctx& c, const std::vector<std::string>& left, const std::vector<std::string>& right,
                  size_t col_w) {
    for (size_t i = 0; i < std::max(left.size(), right.size()); ++i) {
        std::string line = "  " + (i < left.size() ? left[i] : std::string(col_w, ' ')) + "  " +
                           (i < right.size() ? right[i] : std::string());
        while (!line.empty() && line.back() == ' ') line.pop_back();
        c.out << line << '\n';
    }
}

constexpr size_t kDeviceW = 12;

void totals_row(Ctx& c, const std::string& device, const char* dir, const BlockStats& s) {
    // 2 + 12 + 6 + 11 + 11 + 10 + 7 + 10 + 10 = 79
    c.out << "  " << pad_right(elide_end(device, kDeviceW - 1), kDeviceW) << pad_right(dir, 6)
          << pad_left(count_fit(s.requests, 10), 11) << pad_left(human_bytes(s.bytes), 11)
          << pad_left(seq_rand(model::sequential_share(s.sequential, s.random)), 10)
          << pad_left(std::to_string(s.max_depth), 7) << pad_left(human_ns(s.latency_ns.percentile(0.50)), 10)
          << pad_left(human_ns(s.latency_ns.percentile(0.99)), 10) << '\n';
}

void device_table(Ctx& c, const std::vector<const BlockDevice*>& devices) {
    c.out << "  " << pad_right("device", kDeviceW) << pad_right("dir", 6) << pad_left("requests", 11)
          << pad_left("bytes", 11) << pad_left("seq/rand%", 10) << pad_left("depth", 7)
          << pad_left("p50 svc", 10) << pad_left("p99 svc", 10) << '\n';
    for (const auto* d : devices) {
        std::string name = d->name;
        if (d->read.requests) totals_row(c, std::exchange(name, ""), "read", d->read);
        if (d->write.requests) totals_row(c, std::exchange(name, ""), "write", d->write);
        if (d->other_requests)
            c.out << "  " << pad_right(elide_end(name, kDeviceW - 1), kDeviceW) << pad_right("other", 6)
                  << pad_left(count_fit(d->other_requests, 10), 11) << '\n';
    }
}

void direction_histograms(Ctx& c, const BlockDevice& d, const char* dir, const BlockStats& s) {
    if (s.requests == 0) return;
    c.out << '\n'
          << "  " << c.paint(kBold, printable(d.name) + " " + dir) << " (" << human_count(s.requests)
          << (s.requests == 1 ? " request)\n" : " requests)\n");
    const size_t col_w = (c.width - 4) / 2;
    // An empty queue histogram is normal: devices without an I/O scheduler
    // ("none", most NVMe) issue requests without queueing them.
    const auto range = bucket_range({&s.queue_ns, &s.latency_ns});
    if (!range) return;  // requests > 0 always have a service time
    side_by_side(c,
                 time_histogram_column(s.queue_ns, *range, "queue time (insert to issue)",
                                       "no request went through an I/O scheduler", col_w),
                 time_histogram_column(s.latency_ns, *range, "service time (issue to completion)",
                                       "no samples", col_w),
                 col_w);
    c.out << "  request size\n";
    render_log2_histogram(s.size_bytes, "bytes", c.out, static_cast<int>(c.width));
}

void process_table(Ctx& c, const model::Report& r) {
    const auto top = model::top_processes_by_block(r, c.top_n);
    const auto& u = r.block_unattributed;
    if (top.empty() && u.requests == 0) return;
    c.out << '\n'
          << "  by submitting process (" << human_count(top.size()) << " of "
          << human_count(r.processes.size()) << ")\n";
    c.out << "  " << pad_left("pid", 7) << ' ' << pad_right("comm", 20) << pad_left("requests", 12)
          << pad_left("read bytes", 12) << pad_left("write bytes", 12) << '\n';
    const auto row = [&](const std::string& pid, const std::string& comm, const model::ProcessBlock& b) {
        c.out << "  " << pad_left(pid, 7) << ' ' << pad_right(elide_end(comm, 20), 20)
              << pad_left(count_fit(b.requests, 11), 12) << pad_left(human_bytes(b.read_bytes), 12)
              << pad_left(human_bytes(b.write_bytes), 12) << '\n';
    };
    for (const auto* p : top) row(std::to_string(p->info.pid), p->info.comm, p->block);
    // pid 0 in the records: processes iolens does not track, and the kernel
    // (writeback, journal): the share of the disk the job did not cause.
    if (u.requests) row("-", "(others, kernel)", u);
}

}  // namespace

void block_section(Ctx& c, const model::Report& r) {
    section_title(c, "Block devices", "(every request the disks completed, system wide)");
    if (!recording::probe_live(r.capture, recording::kProbeBlock)) {
        not_available(c, r.capture, recording::kProbeBlock);
        return;
    }
    std::vector<const BlockDevice*> devices;
    for (const auto& d : r.block_devices)
        if (devices.size() < c.top_n) devices.push_back(&d);
    if (devices.empty()) {
        c.out << "  no block requests completed during the capture\n";
        return;
    }
    device_table(c, devices);
    if (r.block_devices.size() > devices.size())
        c.out << "  " << human_count(r.block_devices.size() - devices.size())
              << " more devices, each with fewer bytes, are not listed\n";
    process_table(c, r);
    for (const auto* d : devices) {
        direction_histograms(c, *d, "read", d->read);
        direction_histograms(c, *d, "write", d->write);
    }
}

}  // namespace iolens::report::detail
