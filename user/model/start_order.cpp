#include "model/start_order.h"

#include <algorithm>

namespace iolens::model {

namespace {
// A lane that empties keeps its storage unless it grew past this (a thread
// that made a burst of calls and is done, say): the common small lane is
// reused without reallocating.
constexpr size_t kKeepItems = 1024;
// Handed-on items at a lane's front are dropped once they are this many and
// at least half of it (amortised O(1), the lane never grows without bound).
constexpr size_t kCompactAt = 1024;
}  // namespace

void StartOrder::push(const CallEvent& e, uint32_t tag) {
    if (!in_order_) return;
    if (emitted_ && e.start_ns < last_start_) {
        in_order_ = false;  // later than the buffer can absorb
        return;
    }
    const uint64_t key = uint64_t{e.pid} << 32 | e.tid;
    if (last_lane_ == UINT32_MAX || key != last_key_) {
        auto [it, inserted] = lane_of_.try_emplace(key, static_cast<uint32_t>(lanes_.size()));
        if (inserted) lanes_.emplace_back();
        last_key_ = key;
        last_lane_ = it->second;
    }
    add_to(last_lane_, Item{seq_++, e, tag});
    if (++size_ > capacity_) pop();
}

void StartOrder::add_to(uint32_t li, Item item) {
    Lane& l = lanes_[li];
    if (l.empty()) {
        l.items.push_back(item);
        heap_.push_back(li);
        sift_up(heap_.size() - 1);
        return;
    }
    if (!item.before(l.items.back())) {  // the usual case: the thread's next call
        l.items.push_back(item);
        return;
    }
    // Older than the lane's newest: in place, after everything not after it.
    const auto first = l.items.begin() + static_cast<std::ptrdiff_t>(l.head);
    const auto pos = std::upper_bound(first, l.items.end(), item,
                                      [](const Item& a, const Item& b) { return a.before(b); });
    const bool new_front = pos == first;
    l.items.insert(pos, item);
    if (new_front) sift_up(static_cast<size_t>(std::find(heap_.begin(), heap_.end(), li) - heap_.begin()));
}

void StartOrder::finish() {
    while (in_order_ && size_ > 0) pop();
}

void StartOrder::pop() {
    const uint32_t li = heap_.front();
    Lane& l = lanes_[li];
    const Item& top = l.front();
    last_start_ = top.e.start_ns;
    emitted_ = true;
    sink_(top.e, top.tag);
    l.head++;
    size_--;
    if (l.empty()) {
        l.head = 0;
        if (l.items.capacity() > kKeepItems)
            std::vector<Item>().swap(l.items);
        else
            l.items.clear();
        heap_.front() = heap_.back();
        heap_.pop_back();
    } else if (l.head >= kCompactAt && l.head * 2 >= l.items.size()) {
        l.items.erase(l.items.begin(), l.items.begin() + static_cast<std::ptrdiff_t>(l.head));
        l.head = 0;
    }
    if (!heap_.empty()) sift_down(0);
}

bool StartOrder::lane_before(uint32_t a, uint32_t b) const {
    return lanes_[a].front().before(lanes_[b].front());
}

void StartOrder::sift_down(size_t i) {
    const size_t n = heap_.size();
    for (;;) {
        size_t m = i;
        const size_t l = 2 * i + 1, r = l + 1;
        if (l < n && lane_before(heap_[l], heap_[m])) m = l;
        if (r < n && lane_before(heap_[r], heap_[m])) m = r;
        if (m == i) return;
        std::swap(heap_[i], heap_[m]);
        i = m;
    }
}

void StartOrder::sift_up(size_t i) {
    while (i > 0) {
        const size_t p = (i - 1) / 2;
        if (!lane_before(heap_[i], heap_[p])) return;
        std::swap(heap_[i], heap_[p]);
        i = p;
    }
}

}  // namespace iolens::model
