#include "model/access_pattern.h"

#include <algorithm>

namespace iolens::model {

bool AccessJudge::judge(uint64_t& next, const Access& a, AccessCounts& counts) {
    // Offset 0 starts a new pass (a reopen, a rewind): a stream, not a jump.
    const bool sequential = a.offset == next || a.offset == 0;
    if (sequential)
        counts.sequential++;
    else
        counts.random++;
    next = a.end;
    return sequential;
}

void AccessJudge::add(AccessStream& s, AccessCounts& counts, uint32_t tid, uint64_t start_ns, uint64_t offset,
                      uint64_t end) {
    const Access a{start_ns, offset, end};
    Window* win;
    if (!s.shared_) {
        if (!s.used_ || tid == s.tid_) {
            s.used_ = true;
            s.tid_ = tid;
            Judged j{&s, &counts, a, s.next_, false};
            j.sequential = judge(s.next_, a, counts);
            if (recent_.size() < kRecent) {
                recent_.push_back(j);
            } else {
                recent_[head_] = j;
                head_ = (head_ + 1) % kRecent;
            }
            return;
        }
        win = &share(s, counts, tid, start_ns);
    } else {
        // Calls come in runs of one thread and file: remember the last window.
        if (&s != last_stream_) {
            last_window_ = &windows_[&s];
            last_stream_ = &s;
        }
        win = last_window_;
        win->counts = &counts;
        if (auto& t = win->threads; t.size() < kMaxThreads && std::find(t.begin(), t.end(), tid) == t.end())
            t.push_back(tid);
    }
    // Usually the newest: added at the back and moved forward into place.
    auto& w = win->accesses;
    w.push_back(a);
    for (size_t i = w.size() - 1; i > 0 && w[i - 1].start_ns > start_ns; --i) std::swap(w[i], w[i - 1]);
    pending_++;
    const size_t room = kPerThread * win->threads.size();
    while (w.size() > room) {
        judge(s.next_, w.front(), counts);
        w.pop_front();
        pending_--;
    }
    if (pending_ > kMaxPending) drain();
}

void AccessJudge::drain() {
    for (auto& [stream, win] : windows_)
        for (const Access& a : win.accesses) judge(stream->next_, a, *win.counts);
    windows_.clear();
    last_stream_ = nullptr;
    last_window_ = nullptr;
    pending_ = 0;
}

// A second thread's first access, started at start_ns: the first thread's
// accesses judged already that started later are taken back into the new
// window. They are the latest judged of the stream (one thread's accesses
// arrive in start order), so the stream's position goes back to where it was
// before the oldest of them.
AccessJudge::Window& AccessJudge::share(AccessStream& s, AccessCounts& counts, uint32_t tid,
                                        uint64_t start_ns) {
    s.shared_ = true;
    Window& win = windows_[&s];
    last_stream_ = &s;
    last_window_ = &win;
    win.counts = &counts;
    win.threads = {s.tid_, tid};
    const size_t n = recent_.size();
    for (size_t i = 0; i < n; ++i) {  // newest first
        Judged& j = recent_[(head_ + n - 1 - i) % n];
        if (j.stream != &s || j.access.start_ns <= start_ns) continue;
        (j.sequential ? j.counts->sequential : j.counts->random)--;
        s.next_ = j.next_before;
        win.accesses.push_front(j.access);
        pending_++;
        j.stream = nullptr;
    }
    std::stable_sort(win.accesses.begin(), win.accesses.end(),
                     [](const Access& x, const Access& y) { return x.start_ns < y.start_ns; });
    return win;
}

std::vector<std::pair<const AccessCounts*, AccessCounts>> AccessJudge::pending() const {
    std::vector<std::pair<const AccessCounts*, AccessCounts>> out;
    out.reserve(windows_.size());
    for (const auto& [stream, win] : windows_) {
        AccessCounts counts;
        uint64_t next = stream->next_;
        for (const Access& a : win.accesses) judge(next, a, counts);
        out.emplace_back(win.counts, counts);
    }
    return out;
}

}  // namespace iolens::model
