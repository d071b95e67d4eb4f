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
#include <cstddef>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "model/call_event.h"

namespace iolens::model {

class StartOrder {
public:
    using Sink = std::function<void(const CallEvent&, uint32_t tag)>;
    StartOrder(size_t capacity, Sink sink) : capacity_(capacity), sink_(std::move(sink)) {}

    void push(const CallEvent& e, uint32_t tag);
    // Hands on everything still buffered.
    void finish();
    bool in_order() const { return in_order_; }

private:
    struct Item {
        uint64_t start, seq;
        CallEvent e;
        uint32_t tag;
        bool operator>(const Item& o) const { return start != o.start ? start > o.start : seq > o.seq; }
    };
    void pop();

    size_t capacity_;
    Sink sink_;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap_;
    uint64_t seq_ = 0;
    uint64_t last_start_ = 0;
    bool emitted_ = false;
    bool in_order_ = true;
};

}  // namespace iolens::model
