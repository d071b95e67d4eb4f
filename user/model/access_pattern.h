#pragma once
// Sequential or random: does a process's read or write of a file start where
// its previous one, by start time, ended? An access at offset 0 is
// sequential too: reading a file again from its start after reopening it (an
// epoch of persistent workers) or rewinding is a new pass, not a random access.
//
// Why by start time, and why it needs care: records reach the recording per
// thread in runs (the kernel side batches a thread's cached calls,
// docs/capture.md), so two threads of one process reading one file in turn
// arrive as "0, 2, 4, ..." then "1, 3, 5, ...": compared in arrival order,
// a sequential scan looks random.
//
// How: a stream (one process, one file) used by one thread is in start order
// already and each access is judged at once, as it always was. When a second
// thread shows up on a stream, the first thread's accesses that started after
// the newcomer's are taken back (the last judgements are remembered, across
// all streams, in a small ring) and, from then on, the stream's accesses wait
// in a window sorted by start time, a few dozen per thread (more than a
// thread's batch holds), and are judged as they leave it. Memory stays
// bounded: a window is, only streams several threads used have one, and when
// all windows together hold more than kMaxPending accesses they are all
// judged and emptied (the order is then lost only around that point). An
// access later than the window or the ring can absorb is judged where it
// lands: the answer degrades to arrival order, nothing is dropped.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <utility>
#include <vector>

namespace iolens::model {

struct AccessCounts {
    uint64_t sequential = 0;
    uint64_t random = 0;
    AccessCounts& operator+=(const AccessCounts& o) {
        sequential += o.sequential;
        random += o.random;
        return *this;
    }
};

// One process's accesses to one file: 16 bytes, as a job may have millions.
// Judged through AccessJudge, which holds the windows.
class AccessStream {
private:
    friend class AccessJudge;
    uint64_t next_ = 0;  // where the last judged access ended (a first access "follows" offset 0)
    uint32_t tid_ = 0;   // the one thread that used it, until shared_
    bool used_ = false;
    bool shared_ = false;  // a second thread used it: its accesses go through a window
};

// Judges the accesses of every stream of one capture.
class AccessJudge {
public:
    // A read or write by thread tid that started at start_ns and moved the
    // bytes [offset, end). Judgements go to counts (the file's), which must
    // stay where it is (as must the stream) for the judge's lifetime.
    void add(AccessStream& stream, AccessCounts& counts, uint32_t tid, uint64_t start_ns, uint64_t offset,
             uint64_t end);

    // What the windows still hold, judged, with the counts each stream's
    // judgements go to (the end of the capture).
    std::vector<std::pair<const AccessCounts*, AccessCounts>> pending() const;

    // Window entries per thread that used a stream; threads counted up to
    // kMaxThreads. A thread's batch holds 14 records, and up to 119 calls
    // when they are a run (bpf/call_batch.bpf.h): room for two batches.
    static constexpr size_t kPerThread = 256;
    static constexpr size_t kMaxThreads = 64;
    // Immediate judgements remembered, to take back when a stream turns out
    // to be shared.
    // (A thread's batch of runs holds up to 119 calls: room for 64 threads'.)
    static constexpr size_t kRecent = 8192;
    // Accesses all windows may hold together (24 bytes each, plus the
    // windows' own overhead).
    static constexpr size_t kMaxPending = size_t{1} << 18;

private:
    struct Access {
        uint64_t start_ns, offset, end;
    };
    struct Window {
        AccessCounts* counts;
        std::deque<Access> accesses;  // by start time; ties in arrival order
        std::vector<uint32_t> threads;
    };
    struct Judged {
        AccessStream* stream;
        AccessCounts* counts;
        Access access;
        uint64_t next_before;
        bool sequential;
    };
    // Judges a against next (where the previous access ended) and moves next
    // to its end. True if sequential.
    static bool judge(uint64_t& next, const Access& a, AccessCounts& counts);
    Window& share(AccessStream& stream, AccessCounts& counts, uint32_t tid, uint64_t start_ns);
    // Judges what every window holds and frees the windows.
    void drain();

    // Of the shared streams; one drained is made again at its next access.
    std::unordered_map<AccessStream*, Window> windows_;
    size_t pending_ = 0;                   // accesses in all windows
    AccessStream* last_stream_ = nullptr;  // and its window (map nodes stay put)
    Window* last_window_ = nullptr;
    std::vector<Judged> recent_;  // a ring of kRecent once full
    size_t head_ = 0;             // the oldest entry once full
};

}  // namespace iolens::model
