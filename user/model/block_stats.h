#pragma once
// Block-layer aggregates: every request the disks completed during the
// capture (system wide), per device and direction, and the share that tracked
// processes submitted. Semantics in docs/report-schema.md ("Block").
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "iolens/abi.h"
#include "model/histogram.h"

namespace iolens::model {

struct BlockStats {
    uint64_t requests = 0;
    uint64_t bytes = 0;
    Histogram latency_ns;     // service time, issue to completion, per request
    Histogram queue_ns;       // insert to issue, only requests that went through a scheduler
    Histogram size_bytes;     // per request
    uint64_t sequential = 0;  // started at the sector where the previous request ended
    uint64_t random = 0;      // anywhere else (the first request of a direction too)
    uint64_t max_depth = 0;   // most requests in flight on the device at an issue
    void merge(const BlockStats& o);
};

struct BlockDevice {
    uint32_t dev = 0;  // kernel dev_t of the disk
    std::string name;  // "vda", or "major:minor" when the recording did not name it
    BlockStats read;
    BlockStats write;
    uint64_t other_requests = 0;  // flush, discard, write-zeroes, and ops newer than this reader
    uint64_t total_bytes() const { return read.bytes + write.bytes; }
};

// The part of the block traffic a process submitted (or, for
// Report::block_unattributed, that no tracked process did).
struct ProcessBlock {
    uint64_t read_bytes = 0;
    uint64_t write_bytes = 0;
    uint64_t requests = 0;  // of every op, other included
    void add(const iolens_block_rec& r);
};

// Accumulates block records in record order (the order sequential/random
// depends on) and hands back the devices.
class BlockAccumulator {
public:
    void add(const iolens_block_rec& r);
    // Devices by total bytes descending, then dev; names left empty.
    std::vector<BlockDevice> devices() const;

private:
    // Sector continuity is judged in issue order, not completion order: a
    // device with a deep queue completes a sequential stream out of order.
    // Requests wait in a small window sorted by issue time (ties keep arrival
    // order) and are judged as they leave it; completions are only ever
    // reordered within the device's queue depth, so a bounded window is
    // enough and memory stays flat however long the capture.
    struct Direction {
        uint64_t next_sector = 0;  // where the previous judged request ended
        bool seen = false;
        std::multimap<uint64_t, std::pair<uint64_t, uint64_t>> window;  // issue_ns -> (sector, end)
        void judge(uint64_t sector, uint64_t end, BlockStats& s);
        void drain(BlockStats& s);
    };
    static constexpr size_t kReorderWindow = 1024;
    struct Device {
        BlockDevice stats;
        Direction dir[2];  // IOLENS_BLK_READ, IOLENS_BLK_WRITE
    };
    std::map<uint32_t, Device> devices_;
};

}  // namespace iolens::model
