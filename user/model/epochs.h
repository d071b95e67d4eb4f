#pragma once
// Epoch boundaries: from markers when the program emits them, else inferred
// from the dataset re-read cycle. Only the windows are decided here;
// dl_attribution.cpp charges the events to them.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/dl_log.h"
#include "util/flat_map.h"

namespace iolens::model {

struct EpochWindow {
    uint64_t start_ns = 0;
    uint64_t end_ns = 0;
    std::optional<int64_t> marker_number;
    uint64_t steps = 0;
};

// The index in w (sorted by start, not overlapping) of the window holding
// time t, [start_ns, end_ns), or -1. How every event is charged to its epoch.
long epoch_of(const std::vector<EpochWindow>& w, uint64_t t);

// --- markers ---------------------------------------------------------------
// "epoch/N" starts epoch N (and ends the previous one), "step/N" counts a step,
// "end" ends training. Markers may come from any process of any rank: epoch N
// spans from the earliest "epoch/N" to the earliest start of the next epoch
// number, or the first "end" after it, or capture_end. Epochs are ordered by
// their start. steps = distinct step numbers inside the window (a marker
// without a number counts once), so N ranks marking the same step count once.
// Empty when there is no "epoch/N" marker.
std::vector<EpochWindow> epochs_from_markers(const std::vector<MarkerEvent>& markers, uint64_t capture_end);

// One rank's epochs, from the merged windows (epochs_from_markers of every
// marker) and the markers of that rank's own processes: each rank's events are
// charged by its own boundaries, so a rank that marks epoch N later than
// another keeps the end of its epoch N-1 in N-1. Epoch k starts at the rank's
// earliest "epoch/N" (N: global[k]'s number), or at global[k]'s start when the
// rank did not mark N, and never before the rank's epoch k-1. It ends where the
// rank's epoch k+1 starts, or at the first "end" after its start (the rank's
// own "end" markers; every process's when the rank has none), the last one at
// last_end when there is no such "end". A rank without epoch or end markers
// has the global windows. steps stay the global ones.
std::vector<EpochWindow> rank_marker_windows(const std::vector<EpochWindow>& global,
                                             const std::vector<MarkerEvent>& own,
                                             const std::vector<MarkerEvent>& all, uint64_t last_end);

// --- inference ---------------------------------------------------------------
// A rank's dataset is the set of files it reads in passes: a pass of file f by
// process p is p's first read of f after p opened it (or its first read of f
// at all, when the open was not seen). Shuffling changes the order of the
// passes within an epoch, not the set; several workers of the rank share one
// set. Per rank, in time order:
//   1. Only data files count: regular files, reads that returned bytes, paths
//      not under kIgnoredPrefixes nor ending in kIgnoredSuffixes (code and
//      system files every process loads), and files with at least 2 passes in
//      the whole capture (a checkpoint or config read once never makes epochs).
//   2. The current epoch's set grows with each new file. A pass of a file
//      already in the set is a candidate boundary T, if the set covers at
//      least kMinCoverage of the previous epoch's files (any size for the first
//      boundary).
//   3. After T, distinct files are counted as re-reads (in the old set) or
//      fresh (not in it). T is confirmed once re-reads reach kConfirmFraction of
//      the old set; it is cancelled (an incidental re-read: the old epoch goes
//      on) when fresh > kCancelRatio * re-reads + kCancelSlack. At the end of
//      the capture a pending T is kept if re-reads >= kMinTailRereads and
//      re-reads >= fresh (a last epoch cut short by the end of the capture).
//   Evidence: a boundary needs an epoch of at least kMinEpochFiles data
//      files. Fewer files (one HDF5/LMDB file, a shard or two) read in
//      passes by several processes cannot be told from concurrent readers of
//      a shared file (two DataLoader workers or fio jobs each opening it),
//      so no epoch is inferred and the report says why.
//   4. Worker respawn: PyTorch starts new DataLoader workers each epoch
//      (unless persistent_workers). A respawn is a fork of a child of a rank
//      root after all its earlier children exited. If one happened after the
//      last data read before T (nothing of the old epoch after it), the
//      boundary moves back to it. Epoch 1 starts at the first data read, or at
//      the respawn just before it.
// Known limits: a dataset read through one long-lived descriptor per worker
// (persistent workers, a single HDF5/LMDB file) or through mmap has no passes
// to count: emit markers instead. If less than about a quarter of the first
// epoch was captured, the first boundary may be missed.
inline constexpr double kMinCoverage = 0.8;
inline constexpr double kConfirmFraction = 0.5;
inline constexpr double kCancelRatio = 3.0;
inline constexpr uint64_t kCancelSlack = 4;
inline constexpr uint64_t kMinTailRereads = 4;
inline constexpr size_t kMinEpochFiles = 4;
// Whether a file path can hold training data (rule 1, the path part): not
// software_path (model/file_class.h). An empty (unknown) path can.
bool data_file_path(std::string_view path);

// A read of a data file, as the inference sees it: pass = it starts a pass.
// (Not packed: its fields are bound to references, which must be aligned.)
struct DataRead {
    uint64_t t;
    uint32_t file;
    bool pass;
};
// The reads kept for the inference, in order, a few bytes each: the time
// since the previous read and file << 1 | pass as LEB128 varints (5-7 bytes
// where a DataRead takes 16; a 200,000-file job keeps 2.5 M reads a rank),
// in 64 KiB blocks: it grows without a copy twice its size.
class DataReads {
public:
    DataReads() = default;
    template <class It>
    DataReads(It first, It last) {
        for (; first != last; ++first) push_back(*first);
    }
    // Moved from, it is left empty (as the deque it replaced was).
    DataReads(DataReads&& o) noexcept { *this = std::move(o); }
    DataReads& operator=(DataReads&& o) noexcept {
        if (this == &o) return *this;
        blocks_ = std::move(o.blocks_);
        count_ = std::exchange(o.count_, 0);
        last_t_ = std::exchange(o.last_t_, 0);
        o.blocks_.clear();
        return *this;
    }
    void push_back(const DataRead& r);
    size_t size() const { return count_; }
    bool empty() const { return count_ == 0; }
    DataRead front() const { return *begin(); }
    // Keeps only the reads of the files keep(file) says yes to, in order;
    // each block is freed once it was read, so the peak is a block more.
    template <class Keep>
    void filter(Keep&& keep) {
        DataReads out;
        for (size_t b = 0; b < blocks_.size(); ++b) {
            Iterator it(this, b), end(this, b + 1);
            for (; it != end; ++it)
                if (const DataRead r = *it; keep(r.file)) out.push_back(r);
            blocks_[b].data.reset();
        }
        *this = std::move(out);
    }

    // An input iterator: each read decoded as it is reached.
    class Iterator {
    public:
        Iterator() = default;
        DataRead operator*() const { return cur_; }
        Iterator& operator++();
        bool operator==(const Iterator& o) const { return block_ == o.block_ && pos_ == o.pos_; }

    private:
        friend class DataReads;
        Iterator(const DataReads* reads, size_t block);  // at block's first read (or the end)
        void decode();                                   // the read at (block_, pos_)
        const DataReads* reads_ = nullptr;
        size_t block_ = 0, pos_ = 0;  // where cur_ is encoded
        size_t next_ = 0;             // where the read after it is
        DataRead cur_{};
    };
    Iterator begin() const { return Iterator(this, 0); }
    Iterator end() const { return Iterator(this, blocks_.size()); }

private:
    static constexpr size_t kBlockBytes = 64 * 1024;
    static constexpr size_t kMaxRecordBytes = 10 + 10;
    struct Block {
        std::unique_ptr<uint8_t[]> data;
        size_t used = 0;
        uint64_t first_t = 0;  // the time its first read's delta is from
    };
    std::vector<Block> blocks_;
    size_t count_ = 0;
    uint64_t last_t_ = 0;
};

// Rule 1 applied to one rank's calls as they come, in start order, keeping
// only the reads the inference can tell apart from the full sequence.
// Between two pass reads the state machine above only adds files to the set
// (at the first read of each) and remembers the last read's time, so of each
// run of non-pass reads it keeps, per file, the first and the last read: a
// subsequence of the reads that gives the same boundaries (also once files
// with fewer than 2 passes are dropped, which may join two runs). Memory
// grows with passes (files x epochs) and the files read between them, not
// with the reads (a file read in 1,000 chunks keeps 2 of them).
class DataReadLog {
public:
    explicit DataReadLog(const std::vector<bool>& data_file) : data_file_(&data_file) {}
    // Not copied (its tables are large); moving keeps its storage.
    DataReadLog(const DataReadLog&) = delete;
    DataReadLog& operator=(const DataReadLog&) = delete;
    DataReadLog(DataReadLog&&) = default;
    DataReadLog& operator=(DataReadLog&&) = default;
    void add(const OrderedCall& e);  // the rank's calls in start order (ties: record order)
    // The kept reads, in order, without the files of fewer than 2 passes.
    DataReads finish() &&;
    // After finish: when the last call on a kept file ended (its last read,
    // the read at EOF, the close; 0: none). The last inferred epoch ends
    // there, not at the end of the capture.
    uint64_t data_end_ns() const { return data_end_ns_; }

private:
    void close_run();
    void compact_run();
    const std::vector<bool>* data_file_;
    util::FlatMap<uint64_t, uint8_t> state_;  // (pid << 32 | file) -> seen / opened
    // The last key and its state, so that a worker's run of reads of one file
    // costs no lookups; a state is written to state_ only when it changes.
    bool have_last_ = false;
    uint64_t last_key_ = 0;
    uint8_t last_state_ = 0;
    uint8_t get_state(uint64_t key);
    void set_state(uint64_t key, uint8_t s);
    // By file: the end of its last call (read, close, ...) and its pass
    // reads, in one open-addressing table of 16-byte slots: a lookup reads
    // one slot, where two FlatMaps (separate arrays of marks, keys and
    // values) read three places each, and were ~3/4 of add()'s time in a
    // 200,000-file job. At most 7/8 full: ~18-37 bytes a file this rank
    // touched (the two maps took ~28), not a table of every file of the job
    // for every rank.
    struct FileTrack {
        uint64_t end = 0;
        uint32_t passes = 0;
        uint32_t file = kNoTrack;  // kNoTrack: a free slot
    };
    static constexpr uint32_t kNoTrack = UINT32_MAX;
    class FileTracks {
    public:
        FileTracks() = default;
        // Moved from, it is left empty (as FlatMap is): never a size without slots.
        FileTracks(FileTracks&& o) noexcept { *this = std::move(o); }
        FileTracks& operator=(FileTracks&& o) noexcept {
            if (this == &o) return *this;
            slots_ = std::move(o.slots_);
            shift_ = std::exchange(o.shift_, 64);
            size_ = std::exchange(o.size_, 0);
            o.slots_.clear();
            return *this;
        }
        FileTrack& operator[](uint32_t file);  // made (end 0, no passes) when absent
        const FileTrack* find(uint32_t file) const;
        template <class Fn>
        void for_each(Fn&& fn) const {
            for (const FileTrack& t : slots_)
                if (t.file != kNoTrack) fn(t);
        }

    private:
        size_t slot(uint32_t file) const {
            return static_cast<size_t>((uint64_t{file} * 0x9e3779b97f4a7c15ull) >> shift_);
        }
        void grow();
        util::HugeVector<FileTrack> slots_;
        unsigned shift_ = 64;
        size_t size_ = 0;
    };
    FileTracks files_;
    uint64_t data_end_ns_ = 0;
    DataReads out_;  // kept reads before the current run
    // The current run of non-pass reads: its reads (dead ones have kDead as
    // file) and, per file, the index of its first and last read in it.
    static constexpr uint32_t kDead = UINT32_MAX;
    std::vector<DataRead> run_;
    size_t run_dead_ = 0;
    struct Ends {
        uint32_t first, last;
    };
    util::FlatMap<uint32_t, Ends> run_files_;  // cleared at every pass read: O(1)
};

// One rank's inferred epoch starts (the first is epoch 1's start), or empty
// when no boundary was found. reads: DataReadLog::finish(); respawns: fork
// times of respawned workers, sorted. too_few_files (if given) is set when a
// re-read cycle was seen over fewer than kMinEpochFiles files and refused.
std::vector<uint64_t> infer_epoch_starts(const DataReads& reads, const std::vector<uint64_t>& respawns,
                                         bool* too_few_files = nullptr);
inline std::vector<uint64_t> infer_epoch_starts(const std::vector<DataRead>& reads,
                                                const std::vector<uint64_t>& respawns,
                                                bool* too_few_files = nullptr) {
    return infer_epoch_starts(DataReads(reads.begin(), reads.end()), respawns, too_few_files);
}
// The same from the rank's calls sorted by start_ns; data_file[i]: file index
// i passes the path rule.
std::vector<uint64_t> infer_epoch_starts(const std::vector<const CallEvent*>& calls,
                                         const std::vector<bool>& data_file,
                                         const std::vector<uint64_t>& respawns);

// Merges the ranks' starts: epoch k starts at the earliest start k of any rank;
// each ends where the next starts, the last at end.
std::vector<EpochWindow> merge_rank_epochs(const std::vector<std::vector<uint64_t>>& starts, uint64_t end);

}  // namespace iolens::model
