#pragma once
// How many asynchronous requests (Linux AIO, io_uring) a process, or a file,
// kept in flight: the queue depth a job actually reached, whatever it asked
// for. A job that is already async but waits for each request before it
// submits the next has a depth of 1 and gains nothing from being async.
//
//   busy_ns:    the union of the requests' [start, start + duration): time
//               with at least one request in flight.
//   request_ns: their latencies summed.
//   mean depth: request_ns / busy_ns, the time-weighted number of requests
//               in flight while any was (1.0 exactly for one at a time).
//   max depth:  the most in flight at one instant.
//
// Records arrive in completion order, not start order, so the accumulator
// holds requests back and sweeps them in start order: at finish, or when
// kHoldBack are held (then the earliest-starting half is swept). A request
// that arrives after requests that started later than it were swept (one
// still in flight while 32,768 others started and completed) is clipped to
// the swept point: its latency counts whole, its part before that point adds
// neither busy time nor depth (`clipped`). Memory: 16 bytes per held request.
#include <cstdint>
#include <optional>
#include <queue>
#include <vector>

#include "model/intervals.h"

namespace iolens::model {

struct AsyncDepthStats {
    uint64_t requests = 0;
    uint64_t request_ns = 0;  // latencies summed (submission to completion)
    uint64_t busy_ns = 0;     // time with at least one request in flight
    uint64_t max_depth = 0;   // most requests in flight at once
    uint64_t clipped = 0;     // requests swept late (see above); 0 in any ordinary capture
    // request_ns / busy_ns; empty when nothing was in flight for any time.
    std::optional<double> mean_depth() const;
};

class AsyncDepth {
public:
    static constexpr size_t kHoldBack = size_t{1} << 16;

    void add(uint64_t start_ns, uint64_t duration_ns);
    // The figures so far (the accumulator is left as it was).
    AsyncDepthStats stats() const;

private:
    // Sweeps the n earliest-starting held requests (all when n >= held).
    void sweep(size_t n);

    std::vector<Interval> held_;
    AsyncDepthStats s_;
    uint64_t swept_to_ = 0;  // every request starting before it has been swept
    bool open_ = false;      // the union piece being extended
    uint64_t open_s_ = 0, open_e_ = 0;
    // Ends of the swept requests still in flight at swept_to_.
    std::priority_queue<uint64_t, std::vector<uint64_t>, std::greater<>> ends_;
};

}  // namespace iolens::model
