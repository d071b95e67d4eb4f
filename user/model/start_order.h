#pragma once
// Hands calls on in start-time order through a bounded reorder buffer.
//
// Why: the ranks' stall intervals and the epoch inference walk each rank's
// calls by start time. Sorting them all meant holding every call at once
// (64 bytes each); but records reach the recording in completion order,
// which is start order give or take the calls in flight, so a buffer of a few
// thousand calls puts them back in order. Ties keep push order (as a stable
// sort would). If a call arrives that should have come before one already
// handed on, in_order() turns false and the caller must redo the work
// another way (dl_attribution.cpp sorts everything then): never a wrong answer.
//
// How: a thread makes one call at a time, so its calls reach the recording
// already in start order. The buffer keeps one FIFO lane per thread and a
// small heap of the lanes by their oldest call: taking the oldest buffered
// call costs O(log threads) on a few cache lines, where one heap of every
// buffered call cost O(log capacity) cache misses (it was half of `report`'s
// time). A call older than its lane's newest (not expected, but not assumed
// away) is inserted in place, so each lane stays sorted and the calls handed
// on, and when, are exactly what a single heap would give. A lane that
// empties gives its ring up (spares up to the buffer's capacity are kept
// for the next lanes), so memory
// follows the calls buffered, not the number of threads the job ever had.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "model/call_event.h"

namespace iolens::model {

// What does not depend on the sink (start_order.cpp); StartOrder below adds
// the sink, as a template parameter so that handing a call on is a direct,
// inlinable call (two walks of every call: a std::function per call showed).
class StartOrderCore {
public:
    bool in_order() const { return in_order_; }
    // Calls' room the lanes' rings and the spares hold (for tests and
    // measurements).
    size_t held_items() const;

protected:
    explicit StartOrderCore(size_t capacity) : capacity_(capacity) {}
    // A buffered call: its OrderedCall's fields, flat, so that the tag fills
    // what would be the call's padding (48 bytes; a whole CallEvent made 80).
    struct Item {
        uint64_t seq;  // push order, for ties
        uint64_t start_ns, duration_ns, bytes;
        uint32_t pid, tid, packed;
        uint32_t tag;
        Item() = default;
        Item(uint64_t s, const OrderedCall& c, uint32_t t)
            : seq(s),
              start_ns(c.start_ns),
              duration_ns(c.duration_ns),
              bytes(c.bytes),
              pid(c.pid),
              tid(c.tid),
              packed(c.packed),
              tag(t) {}
        OrderedCall call() const { return {start_ns, duration_ns, bytes, pid, tid, packed}; }
        bool before(const Item& o) const {
            return start_ns != o.start_ns ? start_ns < o.start_ns : seq < o.seq;
        }
    };
    static_assert(sizeof(Item) == 48, "the reorder buffer holds tens of thousands of these");
    // Buffers a call; true when the buffer is over capacity (pop one).
    bool push_core(const OrderedCall& e, uint32_t tag);
    // The oldest buffered call (size_ > 0), marked handed on; pop_top()
    // removes it once the sink has seen it.
    const Item& take_top();
    void pop_top();
    bool has_buffered() const { return in_order_ && size_ > 0; }

private:
    // One thread's buffered calls, sorted: a ring (capacity a power of two)
    // so taking the front and adding at the back never move the others.
    struct Lane {
        std::vector<Item> ring;
        size_t head = 0, count = 0;
        bool empty() const { return count == 0; }
        Item& at(size_t i) { return ring[(head + i) & (ring.size() - 1)]; }
        const Item& front() const { return ring[head]; }
        void push_back(const Item& item);
        void pop_front();
    };
    void add_to(uint32_t lane_index, const Item& item);
    void set_key(size_t heap_pos);
    void sift_down(size_t i);
    void sift_up(size_t i);

    size_t capacity_;
    std::vector<Lane> lanes_;
    std::vector<std::vector<Item>> spares_;           // rings of lanes that emptied, for the next ones
    size_t spare_items_ = 0;                          // their capacity, at most capacity_
    std::unordered_map<uint64_t, uint32_t> lane_of_;  // (pid << 32 | tid) -> index in lanes_
    uint64_t last_key_ = 0;
    uint32_t last_lane_ = UINT32_MAX;
    // The non-empty lanes, a min-heap by their front item, whose key is kept
    // here so that the heap's comparisons read one small array.
    struct Entry {
        uint64_t start, seq;
        uint32_t lane;
        bool before(const Entry& o) const { return start != o.start ? start < o.start : seq < o.seq; }
    };
    std::vector<Entry> heap_;
    size_t size_ = 0;  // calls buffered
    uint64_t seq_ = 0;
    uint64_t last_start_ = 0;
    bool emitted_ = false;
    bool in_order_ = true;
};

// sink(const OrderedCall&, uint32_t tag) for each call handed on.
template <class Sink = std::function<void(const OrderedCall&, uint32_t tag)>>
class StartOrder : public StartOrderCore {
public:
    StartOrder(size_t capacity, Sink sink) : StartOrderCore(capacity), sink_(std::move(sink)) {}

    void push(const OrderedCall& e, uint32_t tag) {
        if (push_core(e, tag)) pop();
    }
    // Hands on everything still buffered.
    void finish() {
        while (has_buffered()) pop();
    }

private:
    void pop() {
        const Item& top = take_top();
        sink_(top.call(), top.tag);
        pop_top();
    }
    Sink sink_;
};

}  // namespace iolens::model
