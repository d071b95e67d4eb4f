#include "model/block_stats.h"

#include <algorithm>

namespace iolens::model {

namespace {
constexpr uint64_t kSectorBytes = 512;
}

void BlockStats::merge(const BlockStats& o) {
    requests += o.requests;
    bytes += o.bytes;
    latency_ns.merge(o.latency_ns);
    queue_ns.merge(o.queue_ns);
    size_bytes.merge(o.size_bytes);
    sequential += o.sequential;
    random += o.random;
    max_depth = std::max(max_depth, o.max_depth);
}

void ProcessBlock::add(const iolens_block_rec& r) {
    requests++;
    if (r.op == IOLENS_BLK_READ) read_bytes += r.bytes;
    else if (r.op == IOLENS_BLK_WRITE) write_bytes += r.bytes;
}

void BlockAccumulator::add(const iolens_block_rec& r) {
    auto [it, inserted] = devices_.try_emplace(r.dev);
    Device& d = it->second;
    if (inserted) d.stats.dev = r.dev;
    if (r.op != IOLENS_BLK_READ && r.op != IOLENS_BLK_WRITE) {
        d.stats.other_requests++;
        return;
    }
    BlockStats& s = r.op == IOLENS_BLK_READ ? d.stats.read : d.stats.write;
    s.requests++;
    s.bytes += r.bytes;
    s.latency_ns.add(r.service_ns);
    if (r.flags & IOLENS_BLKF_QUEUED) s.queue_ns.add(r.queue_ns);
    s.size_bytes.add(r.bytes);
    s.max_depth = std::max<uint64_t>(s.max_depth, r.depth);

    // Sector continuity per device and direction. Records arrive in completion
    // order, which the device may reorder; a stream completed out of order
    // counts partly as random (see docs/report-schema.md).
    Direction& dir = d.dir[r.op];
    if (dir.seen && r.sector == dir.next_sector)
        s.sequential++;
    else
        s.random++;
    dir.seen = true;
    dir.next_sector = r.sector + r.bytes / kSectorBytes;
}

std::vector<BlockDevice> BlockAccumulator::devices() const {
    std::vector<BlockDevice> out;
    out.reserve(devices_.size());
    for (const auto& [dev, d] : devices_) out.push_back(d.stats);
    std::stable_sort(out.begin(), out.end(), [](const BlockDevice& a, const BlockDevice& b) {
        return a.total_bytes() > b.total_bytes();  // ties keep dev order (the map's)
    });
    return out;
}

}  // namespace iolens::model
