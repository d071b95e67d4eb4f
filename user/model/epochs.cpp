#include "model/epochs.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "model/file_class.h"
#include "model/rank_env.h"
#include "util/varint.h"

namespace iolens::model {

long epoch_of(const std::vector<EpochWindow>& w, uint64_t t) {
    auto it = std::upper_bound(w.begin(), w.end(), t,
                               [](uint64_t x, const EpochWindow& e) { return x < e.start_ns; });
    if (it == w.begin()) return -1;
    --it;
    return t < it->end_ns ? static_cast<long>(it - w.begin()) : -1;
}

namespace {

// "epoch/3" with prefix "epoch/" -> 3; no number -> empty.
std::optional<int64_t> number_after(std::string_view text, std::string_view prefix) {
    if (text.substr(0, prefix.size()) != prefix) return std::nullopt;
    return parse_env_int(std::string(text.substr(prefix.size())));
}

}  // namespace

std::vector<EpochWindow> epochs_from_markers(const std::vector<MarkerEvent>& markers, uint64_t capture_end) {
    std::map<int64_t, uint64_t> first_start;  // epoch number -> earliest marker
    std::vector<uint64_t> ends;
    struct Step {
        uint64_t ts;
        std::optional<int64_t> n;
    };
    std::vector<Step> steps;
    for (const auto& m : markers) {
        const std::string_view t = m.text;
        if (t.rfind("epoch/", 0) == 0) {
            if (auto n = number_after(t, "epoch/")) {
                auto [it, inserted] = first_start.try_emplace(*n, m.ts_ns);
                if (!inserted) it->second = std::min(it->second, m.ts_ns);
            }
        } else if (t.rfind("step", 0) == 0 && (t.size() == 4 || t[4] == '/')) {
            steps.push_back({m.ts_ns, number_after(t, "step/")});
        } else if (t == "end") {
            ends.push_back(m.ts_ns);
        }
    }
    std::vector<EpochWindow> out;
    for (const auto& [n, ts] : first_start) {
        EpochWindow w;
        w.start_ns = ts;
        w.marker_number = n;
        out.push_back(w);
    }
    std::sort(out.begin(), out.end(),
              [](const EpochWindow& a, const EpochWindow& b) { return a.start_ns < b.start_ns; });
    std::sort(ends.begin(), ends.end());
    // Steps by time: each epoch takes its range by binary search (linear
    // overall, not epochs x steps).
    std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.ts < b.ts; });
    std::vector<int64_t> numbers;
    for (size_t i = 0; i < out.size(); ++i) {
        uint64_t end = std::max(capture_end, out[i].start_ns);
        if (i + 1 < out.size()) end = std::min(end, out[i + 1].start_ns);
        auto e = std::upper_bound(ends.begin(), ends.end(), out[i].start_ns);
        if (e != ends.end()) end = std::min(end, *e);
        out[i].end_ns = end;
        const auto by_ts = [](const Step& st, uint64_t t) { return st.ts < t; };
        auto first = std::lower_bound(steps.begin(), steps.end(), out[i].start_ns, by_ts);
        auto last = std::lower_bound(first, steps.end(), end, by_ts);
        numbers.clear();
        for (auto it = first; it != last; ++it) {
            if (it->n)
                numbers.push_back(*it->n);
            else
                out[i].steps++;
        }
        std::sort(numbers.begin(), numbers.end());
        out[i].steps += static_cast<uint64_t>(std::unique(numbers.begin(), numbers.end()) - numbers.begin());
    }
    return out;
}

namespace {

std::vector<uint64_t> end_markers(const std::vector<MarkerEvent>& markers) {
    std::vector<uint64_t> ends;
    for (const auto& m : markers)
        if (m.text == "end") ends.push_back(m.ts_ns);
    std::sort(ends.begin(), ends.end());
    return ends;
}

}  // namespace

std::vector<EpochWindow> rank_marker_windows(const std::vector<EpochWindow>& global,
                                             const std::vector<MarkerEvent>& own,
                                             const std::vector<MarkerEvent>& all, uint64_t last_end) {
    std::map<int64_t, uint64_t> first_start;  // epoch number -> the rank's earliest marker
    for (const auto& m : own)
        if (auto n = number_after(m.text, "epoch/")) {
            auto [it, inserted] = first_start.try_emplace(*n, m.ts_ns);
            if (!inserted) it->second = std::min(it->second, m.ts_ns);
        }
    std::vector<uint64_t> ends = end_markers(own);
    if (first_start.empty() && ends.empty()) return global;
    if (ends.empty()) ends = end_markers(all);
    std::vector<EpochWindow> out = global;
    const size_t n = out.size();
    for (size_t k = 0; k < n; ++k) {
        if (out[k].marker_number)
            if (auto it = first_start.find(*out[k].marker_number); it != first_start.end())
                out[k].start_ns = it->second;
        if (k && out[k].start_ns < out[k - 1].start_ns) out[k].start_ns = out[k - 1].start_ns;
    }
    for (size_t k = 0; k < n; ++k) {
        uint64_t end = k + 1 < n ? out[k + 1].start_ns : std::max(last_end, out[k].start_ns);
        auto e = std::upper_bound(ends.begin(), ends.end(), out[k].start_ns);
        if (e != ends.end()) end = std::min(end, *e);
        out[k].end_ns = end;
    }
    return out;
}

using util::get_varint;
using util::put_varint;

void DataReads::push_back(const DataRead& r) {
    if (blocks_.empty() || kBlockBytes - blocks_.back().used < kMaxRecordBytes)
        blocks_.push_back({std::make_unique_for_overwrite<uint8_t[]>(kBlockBytes), 0, last_t_});
    Block& b = blocks_.back();
    uint8_t* p = b.data.get() + b.used;
    // Zigzag: the reads come in start order, but nothing here relies on it.
    const auto d = static_cast<int64_t>(r.t - last_t_);
    p = put_varint(p, util::zigzag(static_cast<uint64_t>(d)));
    p = put_varint(p, uint64_t{r.file} << 1 | (r.pass ? 1 : 0));
    b.used = static_cast<size_t>(p - b.data.get());
    last_t_ = r.t;
    count_++;
}

DataReads::Iterator::Iterator(const DataReads* reads, size_t block) : reads_(reads), block_(block) {
    if (block_ < reads_->blocks_.size()) {
        cur_.t = reads_->blocks_[block_].first_t;
        decode();
    }
}

void DataReads::Iterator::decode() {
    const uint8_t* const base = reads_->blocks_[block_].data.get();
    const uint8_t* p = base + pos_;
    uint64_t z = 0, f = 0;
    p = get_varint(p, z);
    p = get_varint(p, f);
    cur_.t += util::unzigzag(z);
    cur_.file = static_cast<uint32_t>(f >> 1);
    cur_.pass = f & 1;
    next_ = static_cast<size_t>(p - base);
}

DataReads::Iterator& DataReads::Iterator::operator++() {
    pos_ = next_;
    if (pos_ < reads_->blocks_[block_].used) {
        decode();
        return *this;
    }
    pos_ = 0;
    if (++block_ < reads_->blocks_.size()) {
        cur_.t = reads_->blocks_[block_].first_t;
        decode();
    }
    return *this;
}

bool data_file_path(std::string_view path) { return !software_path(path); }

namespace {

// Step 1 for one call (see DataReadLog in epochs.h for what is kept).
enum : uint8_t { kSeen = 1, kOpened = 2 };

// The latest respawn in (after, upto], or upto.
uint64_t snap(uint64_t upto, std::optional<uint64_t> after, const std::vector<uint64_t>& respawns) {
    auto it = std::upper_bound(respawns.begin(), respawns.end(), upto);
    if (it == respawns.begin()) return upto;
    --it;
    if (after && *it <= *after) return upto;
    return *it;
}

}  // namespace

void DataReadLog::add(const OrderedCall& e) {
    const uint32_t f = e.file();
    if (f >= data_file_->size() || !(*data_file_)[f]) return;
    const uint64_t key = uint64_t{e.pid} << 32 | f;
    FileTrack& track = files_[f];
    // Any call: the read at EOF and the close end the pass too.
    track.end = std::max(track.end, e.start_ns + e.duration_ns);
    if (e.op() == IOLENS_OP_OPEN) {
        if (!e.has(CallEvent::kError)) set_state(key, get_state(key) | kOpened);
        return;
    }
    if (e.op() != IOLENS_OP_READ || !e.has(CallEvent::kRegular) || !e.has(CallEvent::kHasSize) ||
        e.bytes == 0)
        return;
    const uint8_t s = get_state(key);
    const bool pass = !(s & kSeen) || (s & kOpened);
    set_state(key, kSeen);
    if (pass) {
        close_run();
        out_.push_back({e.start_ns, f, true});
        track.passes++;
        return;
    }
    // A non-pass read: becomes its file's last read in the run; the previous
    // last (if it was not also the first) is no longer needed.
    const auto idx = static_cast<uint32_t>(run_.size());
    auto [ends, inserted] = run_files_.try_emplace(f, Ends{idx, idx});
    if (!inserted) {
        if (ends->last != ends->first) {
            run_[ends->last].file = kDead;
            run_dead_++;
        }
        ends->last = idx;
    }
    run_.push_back({e.start_ns, f, false});
    if (run_dead_ > 64 && run_dead_ * 2 > run_.size()) compact_run();
}

DataReadLog::FileTrack& DataReadLog::FileTracks::operator[](uint32_t file) {
    if ((size_ + 1) * 8 > slots_.size() * 7) grow();
    const size_t mask = slots_.size() - 1;
    for (size_t i = slot(file);; i = (i + 1) & mask) {
        FileTrack& t = slots_[i];
        if (t.file == file) return t;
        if (t.file == kNoTrack) {
            t.file = file;
            size_++;
            return t;
        }
    }
}

const DataReadLog::FileTrack* DataReadLog::FileTracks::find(uint32_t file) const {
    if (size_ == 0) return nullptr;
    const size_t mask = slots_.size() - 1;
    for (size_t i = slot(file);; i = (i + 1) & mask) {
        const FileTrack& t = slots_[i];
        if (t.file == file) return &t;
        if (t.file == kNoTrack) return nullptr;
    }
}

// Built aside and swapped in: a failed allocation leaves the table as it was.
void DataReadLog::FileTracks::grow() {
    const size_t n = slots_.empty() ? 16 : slots_.size() * 2;
    util::HugeVector<FileTrack> slots(n);
    const unsigned shift = 64 - static_cast<unsigned>(__builtin_ctzll(n));
    for (const FileTrack& t : slots_) {
        if (t.file == kNoTrack) continue;
        size_t i = static_cast<size_t>((uint64_t{t.file} * 0x9e3779b97f4a7c15ull) >> shift);
        while (slots[i].file != kNoTrack) i = (i + 1) & (n - 1);
        slots[i] = t;
    }
    slots_.swap(slots);
    shift_ = shift;
}

uint8_t DataReadLog::get_state(uint64_t key) {
    if (!have_last_ || key != last_key_) {
        const uint8_t* st = state_.find(key);
        have_last_ = true;
        last_key_ = key;
        last_state_ = st ? *st : 0;
    }
    return last_state_;
}

void DataReadLog::set_state(uint64_t key, uint8_t s) {
    if (have_last_ && key == last_key_ && s == last_state_) return;
    state_[key] = s;
    have_last_ = true;
    last_key_ = key;
    last_state_ = s;
}

void DataReadLog::compact_run() {
    std::erase_if(run_, [](const DataRead& r) { return r.file == kDead; });
    run_dead_ = 0;
    run_files_.clear();
    for (uint32_t i = 0; i < run_.size(); ++i) {
        auto [ends, inserted] = run_files_.try_emplace(run_[i].file, Ends{i, i});
        if (!inserted) ends->last = i;
    }
}

void DataReadLog::close_run() {
    for (const DataRead& r : run_)
        if (r.file != kDead) out_.push_back(r);
    run_.clear();
    run_dead_ = 0;
    run_files_.clear();
}

DataReads DataReadLog::finish() && {
    close_run();
    // Files with fewer than 2 passes in the whole capture cannot mark a cycle.
    out_.filter([&](uint32_t file) {
        const FileTrack* t = files_.find(file);
        return t && t->passes >= 2;
    });
    files_.for_each([&](const FileTrack& t) {
        if (t.passes >= 2) data_end_ns_ = std::max(data_end_ns_, t.end);
    });
    // Nothing else is asked of it: its per-file and per-(process, file)
    // tables (~20 MiB a rank of a 200,000-file job) go now, before the
    // caller infers this rank's epochs beside the other ranks' logs.
    state_ = {};
    files_ = FileTracks();
    run_files_ = {};
    run_ = std::vector<DataRead>();  // `= {}` would keep the capacity
    have_last_ = false;
    return std::move(out_);
}

std::vector<uint64_t> infer_epoch_starts(const std::vector<const CallEvent*>& calls,
                                         const std::vector<bool>& data_file,
                                         const std::vector<uint64_t>& respawns) {
    DataReadLog log(data_file);
    for (const CallEvent* e : calls) log.add(*e);
    return infer_epoch_starts(std::move(log).finish(), respawns);
}

std::vector<uint64_t> infer_epoch_starts(const DataReads& reads, const std::vector<uint64_t>& respawns,
                                         bool* too_few_files) {
    if (reads.empty()) return {};
    // Membership by stamp: file f is in the current set when cur[f] == cur_id.
    util::FlatMap<uint32_t, uint32_t> cur, fresh_set;
    uint32_t cur_id = 1, tent_id = 0;
    size_t cur_size = 0, prev_size = 0;
    bool tentative = false;
    uint64_t T = 0;
    std::optional<uint64_t> L, last_read;  // last data read before T / so far
    size_t rereads = 0, fresh = 0;
    std::vector<uint32_t> new_files;
    std::vector<uint64_t> starts;

    const auto in_cur = [&](uint32_t f) {
        const uint32_t* id = cur.find(f);
        return id && *id == cur_id;
    };
    const auto confirm = [&] {
        if (starts.empty()) starts.push_back(snap(reads.front().t, std::nullopt, respawns));
        starts.push_back(snap(T, L, respawns));
        prev_size = cur_size;
        ++cur_id;
        for (uint32_t f : new_files) cur[f] = cur_id;
        cur_size = new_files.size();
        tentative = false;
    };
    const auto cancel = [&] {
        for (uint32_t f : new_files)
            if (!in_cur(f)) {
                cur[f] = cur_id;
                cur_size++;
            }
        tentative = false;
    };
    for (const DataRead& r : reads) {
        if (!tentative) {
            if (!in_cur(r.file)) {
                cur[r.file] = cur_id;
                cur_size++;
            } else if (r.pass && (prev_size == 0 || static_cast<double>(cur_size) >=
                                                        kMinCoverage * static_cast<double>(prev_size))) {
                tentative = true;
                T = r.t;
                L = last_read;
                ++tent_id;
                fresh_set[r.file] = tent_id;
                new_files.assign(1, r.file);
                rereads = 1;
                fresh = 0;
            }
        } else if (r.pass) {
            auto [id, inserted] = fresh_set.try_emplace(r.file, tent_id);
            if (inserted || *id != tent_id) {
                *id = tent_id;
                new_files.push_back(r.file);
                (in_cur(r.file) ? rereads : fresh)++;
            }
        }
        if (tentative) {
            if (static_cast<double>(rereads) >= kConfirmFraction * static_cast<double>(cur_size)) {
                if (cur_size >= kMinEpochFiles) {
                    confirm();
                } else {
                    // Too few files to tell a cycle from concurrent readers.
                    if (too_few_files) *too_few_files = true;
                    cancel();
                }
            } else if (static_cast<double>(fresh) >
                       kCancelRatio * static_cast<double>(rereads) + static_cast<double>(kCancelSlack))
                cancel();
        }
        last_read = r.t;
    }
    if (tentative && rereads >= kMinTailRereads && rereads >= fresh) confirm();
    return starts;
}

std::vector<EpochWindow> merge_rank_epochs(const std::vector<std::vector<uint64_t>>& starts, uint64_t end) {
    size_t n = 0;
    for (const auto& s : starts) n = std::max(n, s.size());
    std::vector<EpochWindow> out(n);
    for (size_t k = 0; k < n; ++k) {
        uint64_t t = UINT64_MAX;
        for (const auto& s : starts)
            if (k < s.size()) t = std::min(t, s[k]);
        out[k].start_ns = t;
    }
    std::sort(out.begin(), out.end(),
              [](const EpochWindow& a, const EpochWindow& b) { return a.start_ns < b.start_ns; });
    for (size_t k = 0; k < n; ++k)
        out[k].end_ns = k + 1 < n ? out[k + 1].start_ns : std::max(end, out[k].start_ns);
    return out;
}

}  // namespace iolens::model
