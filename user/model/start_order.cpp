#include "model/start_order.h"

#include <algorithm>

namespace iolens::model {

void StartOrderCore::Lane::push_back(const Item& item) {
    if (count == ring.size()) {  // full: double, oldest first
        std::vector<Item> bigger(std::max<size_t>(8, 2 * ring.size()));
        for (size_t i = 0; i < count; ++i) bigger[i] = at(i);
        ring = std::move(bigger);
        head = 0;
    }
    count++;
    at(count - 1) = item;
}

void StartOrderCore::Lane::pop_front() {
    head = (head + 1) & (ring.size() - 1);
    if (--count == 0) head = 0;
}

bool StartOrderCore::push_core(const OrderedCall& e, uint32_t tag) {
    if (!in_order_) return false;
    if (emitted_ && e.start_ns < last_start_) {
        in_order_ = false;  // later than the buffer can absorb
        return false;
    }
    const uint64_t key = uint64_t{e.pid} << 32 | e.tid;
    if (last_lane_ == UINT32_MAX || key != last_key_) {
        auto [it, inserted] = lane_of_.try_emplace(key, static_cast<uint32_t>(lanes_.size()));
        if (inserted) lanes_.emplace_back();
        last_key_ = key;
        last_lane_ = it->second;
    }
    add_to(last_lane_, Item{seq_++, e, tag});
    return ++size_ > capacity_;
}

void StartOrderCore::add_to(uint32_t li, const Item& item) {
    Lane& l = lanes_[li];
    const bool was_empty = l.empty();
    if (l.ring.empty() && !spares_.empty()) {
        l.ring = std::move(spares_.back());
        spares_.pop_back();
        spare_items_ -= l.ring.size();
    }
    l.push_back(item);
    if (was_empty) {
        heap_.push_back({item.start_ns, item.seq, li});
        sift_up(heap_.size() - 1);
        return;
    }
    // Older than the lane's newest (not the usual case): moved back to its
    // place, after everything not after it (it has the highest seq).
    size_t i = l.count - 1;
    while (i > 0 && l.at(i).before(l.at(i - 1))) {
        std::swap(l.at(i), l.at(i - 1));
        --i;
    }
    if (i == 0) {  // the lane's front changed
        const auto pos = static_cast<size_t>(
            std::find_if(heap_.begin(), heap_.end(), [&](const Entry& h) { return h.lane == li; }) -
            heap_.begin());
        set_key(pos);
        sift_up(pos);
    }
}

const StartOrderCore::Item& StartOrderCore::take_top() {
    const Item& top = lanes_[heap_.front().lane].front();
    last_start_ = top.start_ns;
    emitted_ = true;
    return top;
}

void StartOrderCore::pop_top() {
    const uint32_t li = heap_.front().lane;
    Lane& l = lanes_[li];
    l.pop_front();
    size_--;
    if (l.empty()) {
        // Its ring goes to the spares for the next lane that fills (threads
        // take turns: allocating a ring each time was a tenth of the walk),
        // up to as many calls as the buffer holds: memory follows the calls
        // buffered, not every thread ever seen.
        if (spare_items_ + l.ring.size() <= capacity_) {
            spare_items_ += l.ring.size();
            spares_.push_back(std::move(l.ring));
        }
        // Freed, not only emptied: `ring = {}` would keep its capacity (the
        // initializer-list assignment), and a thread that has exited never
        // refills its lane (a 200,000-file job held 10 MiB a walk so).
        l.ring = std::vector<Item>();
        heap_.front() = heap_.back();
        heap_.pop_back();
    } else {
        set_key(0);
    }
    if (!heap_.empty()) sift_down(0);
}

size_t StartOrderCore::held_items() const {
    size_t n = 0;
    for (const Lane& l : lanes_) n += l.ring.capacity();
    for (const auto& s : spares_) n += s.capacity();
    return n;
}

void StartOrderCore::set_key(size_t pos) {
    const Item& front = lanes_[heap_[pos].lane].front();
    heap_[pos].start = front.start_ns;
    heap_[pos].seq = front.seq;
}

void StartOrderCore::sift_down(size_t i) {
    const size_t n = heap_.size();
    for (;;) {
        size_t m = i;
        const size_t l = 2 * i + 1, r = l + 1;
        if (l < n && heap_[l].before(heap_[m])) m = l;
        if (r < n && heap_[r].before(heap_[m])) m = r;
        if (m == i) return;
        std::swap(heap_[i], heap_[m]);
        i = m;
    }
}

void StartOrderCore::sift_up(size_t i) {
    while (i > 0) {
        const size_t p = (i - 1) / 2;
        if (!heap_[i].before(heap_[p])) return;
        std::swap(heap_[i], heap_[p]);
        i = p;
    }
}

}  // namespace iolens::model
