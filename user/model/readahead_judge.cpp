#include "model/readahead_judge.h"

#include <algorithm>
#include <numeric>

#include "model/read_cover.h"

namespace iolens::model {

std::vector<uint64_t> judge_readahead(std::vector<ReadSpan>& reads, const std::vector<ReadaheadSpan>& spans) {
    std::sort(reads.begin(), reads.end(),
              [](const ReadSpan& a, const ReadSpan& b) { return a.start_ns < b.start_ns; });
    // Spans by the time they left: every read that started before a span
    // left is in the cover when it is judged.
    std::vector<size_t> order(spans.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return spans[a].gone_ns < spans[b].gone_ns; });
    std::vector<uint64_t> unread(spans.size(), 0);
    ReadCover cover;
    size_t next = 0;
    for (const size_t i : order) {
        const ReadaheadSpan& s = spans[i];
        for (; next < reads.size() && reads[next].start_ns <= s.gone_ns; ++next)
            cover.add(reads[next].lo, reads[next].hi, reads[next].end_ns);
        if (s.hi <= s.lo) continue;
        const uint64_t pages = s.hi - s.lo - cover.read_since(s.lo, s.hi, s.added_ns);
        unread[i] = std::min(pages * 4096, s.ra_bytes);
    }
    return unread;
}

bool extend_read_span(ReadSpan& run, uint64_t lo, uint64_t hi, uint64_t start_ns, uint64_t end_ns) {
    if (run.hi == 0 || lo + 1 < run.hi || lo > run.hi) return false;
    run.hi = std::max(run.hi, hi);
    run.end_ns = std::max(run.end_ns, end_ns);
    run.start_ns = std::min(run.start_ns, start_ns);
    return true;
}

}  // namespace iolens::model
