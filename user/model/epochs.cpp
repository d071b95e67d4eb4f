#include "model/epochs.h"

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "model/rank_env.h"

namespace iolens::model {

namespace {

// "epoch/3" with prefix "epoch/" -> 3; no number -> empty.
std::optional<int64_t> number_after(std::string_view text, std::string_view prefix) {
    if (text.substr(0, prefix.size()) != prefix) return std::nullopt;
    return parse_env_int(std::string(text.substr(prefix.size())));
}

}  // namespace

std::vector<EpochWindow> epochs_from_markers(const std::vector<MarkerEvent>& markers,
                                             uint64_t capture_end) {
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
    for (size_t i = 0; i < out.size(); ++i) {
        uint64_t end = std::max(capture_end, out[i].start_ns);
        if (i + 1 < out.size()) end = std::min(end, out[i + 1].start_ns);
        auto e = std::upper_bound(ends.begin(), ends.end(), out[i].start_ns);
        if (e != ends.end()) end = std::min(end, *e);
        out[i].end_ns = end;
        std::set<int64_t> numbers;
        for (const auto& s : steps) {
            if (s.ts < out[i].start_ns || s.ts >= end) continue;
            if (s.n) numbers.insert(*s.n);
            else out[i].steps++;
        }
        out[i].steps += numbers.size();
    }
    return out;
}

bool data_file_path(std::string_view path) {
    for (auto p : kIgnoredPrefixes)
        if (path.substr(0, p.size()) == p) return false;
    for (auto s : kIgnoredSuffixes)
        if (path.size() >= s.size() && path.substr(path.size() - s.size()) == s) return false;
    return path.find(".so.") == std::string_view::npos;  // libfoo.so.1
}

namespace {

struct DataRead {
    uint64_t t;
    uint32_t file;
    bool pass;
};

// Steps 1 (per call): the rank's reads of data files, each marked whether it
// starts a pass.
std::vector<DataRead> data_reads(const std::vector<const CallEvent*>& calls,
                                 const std::vector<bool>& data_file) {
    enum : uint8_t { kSeen = 1, kOpened = 2 };
    std::unordered_map<uint64_t, uint8_t> state;  // (pid, file) -> kSeen | kOpened
    std::vector<DataRead> out;
    for (const CallEvent* e : calls) {
        const uint32_t f = e->file();
        if (f >= data_file.size() || !data_file[f]) continue;
        const uint64_t key = uint64_t{e->pid} << 32 | f;
        if (e->op() == IOLENS_OP_OPEN) {
            if (!e->has(CallEvent::kError)) state[key] |= kOpened;
            continue;
        }
        if (e->op() != IOLENS_OP_READ || !e->has(CallEvent::kRegular) ||
            !e->has(CallEvent::kHasSize) || e->bytes == 0)
            continue;
        uint8_t& s = state[key];
        out.push_back({e->start_ns, f, !(s & kSeen) || (s & kOpened)});
        s = kSeen;
    }
    // Files with fewer than 2 passes in the whole capture cannot mark a cycle.
    std::unordered_map<uint32_t, uint32_t> passes;
    for (const auto& r : out) passes[r.file] += r.pass;
    std::erase_if(out, [&](const DataRead& r) { return passes[r.file] < 2; });
    return out;
}

// The latest respawn in (after, upto], or upto.
uint64_t snap(uint64_t upto, std::optional<uint64_t> after, const std::vector<uint64_t>& respawns) {
    auto it = std::upper_bound(respawns.begin(), respawns.end(), upto);
    if (it == respawns.begin()) return upto;
    --it;
    if (after && *it <= *after) return upto;
    return *it;
}

}  // namespace

std::vector<uint64_t> infer_epoch_starts(const std::vector<const CallEvent*>& calls,
                                         const std::vector<bool>& data_file,
                                         const std::vector<uint64_t>& respawns) {
    const std::vector<DataRead> reads = data_reads(calls, data_file);
    if (reads.empty()) return {};
    // Membership by stamp: file f is in the current set when cur[f] == cur_id.
    std::unordered_map<uint32_t, uint32_t> cur, fresh_set;
    uint32_t cur_id = 1, tent_id = 0;
    size_t cur_size = 0, prev_size = 0;
    bool tentative = false;
    uint64_t T = 0;
    std::optional<uint64_t> L, last_read;  // last data read before T / so far
    size_t rereads = 0, fresh = 0;
    std::vector<uint32_t> new_files;
    std::vector<uint64_t> starts;

    const auto in_cur = [&](uint32_t f) {
        auto it = cur.find(f);
        return it != cur.end() && it->second == cur_id;
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
            } else if (r.pass && (prev_size == 0 ||
                                  static_cast<double>(cur_size) >=
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
            auto [it, inserted] = fresh_set.try_emplace(r.file, tent_id);
            if (inserted || it->second != tent_id) {
                it->second = tent_id;
                new_files.push_back(r.file);
                (in_cur(r.file) ? rereads : fresh)++;
            }
        }
        if (tentative) {
            if (static_cast<double>(rereads) >= kConfirmFraction * static_cast<double>(cur_size))
                confirm();
            else if (static_cast<double>(fresh) >
                     kCancelRatio * static_cast<double>(rereads) + static_cast<double>(kCancelSlack))
                cancel();
        }
        last_read = r.t;
    }
    if (tentative && rereads >= kMinTailRereads && rereads >= fresh) confirm();
    return starts;
}

std::vector<EpochWindow> merge_rank_epochs(const std::vector<std::vector<uint64_t>>& starts,
                                           uint64_t end) {
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
