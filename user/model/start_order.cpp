#include "model/start_order.h"

namespace iolens::model {

void StartOrder::push(const CallEvent& e, uint32_t tag) {
    if (!in_order_) return;
    if (emitted_ && e.start_ns < last_start_) {
        in_order_ = false;  // later than the buffer can absorb
        return;
    }
    heap_.push({e.start_ns, seq_++, e, tag});
    if (heap_.size() > capacity_) pop();
}

void StartOrder::finish() {
    while (in_order_ && !heap_.empty()) pop();
}

void StartOrder::pop() {
    const Item& top = heap_.top();
    last_start_ = top.start;
    emitted_ = true;
    sink_(top.e, top.tag);
    heap_.pop();
}

}  // namespace iolens::model
