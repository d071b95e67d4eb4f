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
    if (r.op == IOLENS_BLK_READ)
        read_bytes += r.bytes;
    else if (r.op == IOLENS_BLK_WRITE)
        write_bytes += r.bytes;
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

    Direction& dir = d.dir[r.op];
    dir.window.emplace(r.issue_ns, std::make_pair(r.sector, r.sector + r.bytes / kSectorBytes));
    if (dir.window.size() > kReorderWindow) {
        auto first = dir.window.begin();
        dir.judge(first->second.first, first->second.second, s);
        dir.window.erase(first);
    }
}

void BlockAccumulator::Direction::judge(uint64_t sector, uint64_t end, BlockStats& s) {
    if (seen && sector == next_sector)
        s.sequential++;
    else
        s.random++;
    seen = true;
    next_sector = end;
}

void BlockAccumulator::Direction::drain(BlockStats& s) {
    for (const auto& [issue, range] : window) judge(range.first, range.second, s);
    window.clear();
}

std::vector<BlockDevice> BlockAccumulator::devices() const {
    std::vector<BlockDevice> out;
    out.reserve(devices_.size());
    for (const auto& [dev, d] : devices_) {
        // Judge what is still waiting in the reorder windows, on a copy.
        Device copy = d;
        copy.dir[IOLENS_BLK_READ].drain(copy.stats.read);
        copy.dir[IOLENS_BLK_WRITE].drain(copy.stats.write);
        out.push_back(copy.stats);
    }
    std::stable_sort(out.begin(), out.end(), [](const BlockDevice& a, const BlockDevice& b) {
        return a.total_bytes() > b.total_bytes();  // ties keep dev order (the map's)
    });
    return out;
}

}  // namespace iolens::model
