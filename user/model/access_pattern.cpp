#include "model/access_pattern.h"

#include <algorithm>
#include <iterator>

namespace iolens::model {

bool AccessStream::judge(uint64_t& next, const Access& a, AccessCounts& counts) {
    const bool sequential = a.offset == next;
    if (sequential)
        counts.sequential++;
    else
        counts.random++;
    next = a.end;
    return sequential;
}

AccessCounts AccessStream::pending() const {
    AccessCounts counts;
    if (!window_) return counts;
    uint64_t next = next_;
    for (const Access& a : window_->accesses) judge(next, a, counts);
    return counts;
}

void AccessJudge::add(AccessStream& s, AccessCounts& counts, uint32_t tid, uint64_t start_ns, uint64_t offset,
                      uint64_t end) {
    const AccessStream::Access a{start_ns, offset, end};
    if (!s.window_) {
        if (!s.used_ || tid == s.tid_) {
            s.used_ = true;
            s.tid_ = tid;
            Judged j{&s, &counts, a, s.next_, false};
            j.sequential = AccessStream::judge(s.next_, a, counts);
            if (recent_.size() < kRecent) {
                recent_.push_back(j);
            } else {
                recent_[head_] = j;
                head_ = (head_ + 1) % kRecent;
            }
            return;
        }
        share(s, tid, start_ns);
    } else if (auto& t = s.window_->threads;
               t.size() < kMaxThreads && std::find(t.begin(), t.end(), tid) == t.end()) {
        t.push_back(tid);
    }
    auto& w = s.window_->accesses;
    auto at = w.end();  // usually the newest: searched from the back
    while (at != w.begin() && std::prev(at)->start_ns > start_ns) --at;
    w.insert(at, a);
    const size_t room = kPerThread * s.window_->threads.size();
    while (w.size() > room) {
        AccessStream::judge(s.next_, w.front(), counts);
        w.pop_front();
    }
}

// A second thread's first access, started at start_ns: the first thread's
// accesses judged already that started later are taken back into the new
// window. They are the latest judged of the stream (one thread's accesses
// arrive in start order), so the stream's position goes back to where it was
// before the oldest of them.
void AccessJudge::share(AccessStream& s, uint32_t tid, uint64_t start_ns) {
    s.window_ = std::make_unique<AccessStream::Window>();
    s.window_->threads = {s.tid_, tid};
    auto& w = s.window_->accesses;
    const size_t n = recent_.size();
    for (size_t i = 0; i < n; ++i) {  // newest first
        Judged& j = recent_[(head_ + n - 1 - i) % n];
        if (j.stream != &s || j.access.start_ns <= start_ns) continue;
        (j.sequential ? j.counts->sequential : j.counts->random)--;
        s.next_ = j.next_before;
        w.push_front(j.access);
        j.stream = nullptr;
    }
    std::stable_sort(w.begin(), w.end(), [](const auto& x, const auto& y) { return x.start_ns < y.start_ns; });
}

}  // namespace iolens::model
