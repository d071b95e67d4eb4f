// Rules on the page cache. They need the page-cache probe family: without it
// the PageCacheStats are all zero (unknown, not "no misses") and these rules
// stay silent.
#include <fmt/format.h>

#include "analysis/rules.h"

namespace iolens::analysis::detail {

using nlohmann::json;

namespace {

// An epoch after the first that brought most of what it read into the cache
// again (dataset_exceeds_cache, self_eviction judge the same epochs).
struct MissingEpoch {
    const model::EpochStats* epoch;
    uint64_t read_bytes;
    double hit_ratio;
    uint64_t dropped_by_job;  // evicted_by_job_bytes of this epoch and the one before
};

struct EpochMisses {
    uint32_t judged = 0;                 // epochs that could be judged
    std::vector<MissingEpoch> by_cache;  // missing, not explained by the job's own drops
    std::vector<MissingEpoch> by_job;    // missing, at least half explained by them
};

EpochMisses epoch_misses(const model::Report& r, const Thresholds& t) {
    EpochMisses m;
    for (size_t k = 0; k < r.epochs.size(); ++k) {
        const auto& e = r.epochs[k];
        if (e.index < t.cache_min_epoch_index) continue;
        const uint64_t rb = e.ops[IOLENS_OP_READ].bytes;
        const auto hit = e.page_cache.hit_ratio();
        if (rb < t.cache_min_epoch_read_bytes || !hit) continue;
        ++m.judged;
        const double miss_share = static_cast<double>(e.page_cache.miss_bytes) / static_cast<double>(rb);
        if (*hit > t.cache_max_hit_ratio || miss_share < t.cache_min_miss_share) continue;
        // Pages the job dropped itself (POSIX_FADV_DONTNEED, truncate, ...;
        // not reclaim) in this epoch or the one before explain at least half
        // of its misses: the data did not fail to fit, the job evicted it.
        const uint64_t by_job =
            e.page_cache.evicted_by_job_bytes + (k > 0 ? r.epochs[k - 1].page_cache.evicted_by_job_bytes : 0);
        (2 * by_job >= e.page_cache.miss_bytes ? m.by_job : m.by_cache).push_back({&e, rb, *hit, by_job});
    }
    return m;
}

nlohmann::json epoch_rows(const std::vector<MissingEpoch>& epochs) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& m : epochs)
        rows.push_back({{"epoch", m.epoch->index},
                        {"read_bytes", m.read_bytes},
                        {"miss_bytes", m.epoch->page_cache.miss_bytes},
                        {"hit_ratio", round4(m.hit_ratio)},
                        {"evicted_bytes", m.epoch->page_cache.evicted_bytes},
                        {"evicted_by_job_bytes", m.epoch->page_cache.evicted_by_job_bytes}});
    return rows;
}

}  // namespace

// dataset_exceeds_cache: epochs after the first keep bringing most of what
// they read into the cache again, so the data set (or the part of it this
// node reads) does not stay cached between epochs.
void dataset_exceeds_cache(const model::Report& r, const Thresholds& t, Candidates& out) {
    if (!recording::probe_live(r.capture, recording::kProbePageCache)) return;
    const EpochMisses m = epoch_misses(r, t);
    // "Keep missing": at least half of the epochs that could be judged.
    const uint32_t n = static_cast<uint32_t>(m.by_cache.size());
    if (n == 0 || 2 * n < m.judged) return;
    double hit_sum = 0;
    uint64_t miss_bytes = 0, read_bytes = 0;
    for (const auto& e : m.by_cache) {
        hit_sum += e.hit_ratio;
        miss_bytes += e.epoch->page_cache.miss_bytes;
        read_bytes += e.read_bytes;
    }
    const double mean_hit = hit_sum / n;

    model::Evidence ev;
    ev.count("epochs_judged", m.judged)
        .count("epochs_missing", n)
        .share("mean_hit_ratio", round4(mean_hit))
        .bytes("miss_bytes", miss_bytes)
        .bytes("read_bytes", read_bytes)
        .bytes("evicted_bytes", r.page_cache.evicted_bytes)
        .details("epochs", epoch_rows(m.by_cache));
    // Epoch 1 reads the data set once: the best estimate of its size here.
    for (const auto& e : r.epochs)
        if (e.index == 1) ev.bytes("first_epoch_read_bytes", e.ops[IOLENS_OP_READ].bytes);
    out.push_back({{"dataset_exceeds_cache",
                    mean_hit <= t.cache_high_hit_ratio ? model::Severity::High : model::Severity::Warn,
                    fmt::format("epochs {}+ re-read the data from storage (hit ratio {})",
                                t.cache_min_epoch_index, pct(mean_hit)),
                    std::move(ev),
                    "The data set does not stay in the page cache between epochs: compare "
                    "first_epoch_read_bytes with free memory and the job's memory cgroup limit "
                    "(memory.max; raise it if it is the cap). Otherwise stage the data on "
                    "node-local NVMe, shard it across nodes so each node's part fits in RAM, "
                    "or store it compressed / at training resolution. If it can never fit, "
                    "read large sequential shards (or O_DIRECT) so each epoch streams at disk "
                    "bandwidth instead of thrashing the cache."},
                   (1.0 - mean_hit) / (1.0 - t.cache_max_hit_ratio)});
}

// self_eviction: the same epochs miss, but because the job drops its own
// pages (POSIX_FADV_DONTNEED, truncation, drop_caches from inside the job),
// not because memory is short: named as such, so nobody buys memory for it.
// Info: a job may mean it (a cold-read benchmark); a loader that does it by
// habit pays a storage read per sample per epoch.
void self_eviction(const model::Report& r, const Thresholds& t, Candidates& out) {
    if (!recording::probe_live(r.capture, recording::kProbePageCache)) return;
    const EpochMisses m = epoch_misses(r, t);
    const uint32_t n = static_cast<uint32_t>(m.by_job.size());
    if (n == 0 || 2 * n < m.judged) return;
    uint64_t miss_bytes = 0, read_bytes = 0, dropped = 0;
    for (const auto& e : m.by_job) {
        miss_bytes += e.epoch->page_cache.miss_bytes;
        read_bytes += e.read_bytes;
    }
    for (const auto& e : r.epochs) dropped += e.page_cache.evicted_by_job_bytes;
    model::Evidence ev;
    ev.count("epochs_judged", m.judged)
        .count("epochs_missing", n)
        .bytes("miss_bytes", miss_bytes)
        .bytes("read_bytes", read_bytes)
        .bytes("evicted_by_job_bytes", dropped)
        .bytes("evicted_bytes", r.page_cache.evicted_bytes)
        .details("epochs", epoch_rows(m.by_job));
    const double miss_share =
        read_bytes ? static_cast<double>(miss_bytes) / static_cast<double>(read_bytes) : 0;
    out.push_back(
        {{"self_eviction", model::Severity::Info,
          fmt::format("the job drops its own cached data and reads it again from storage ({} dropped)",
                      human_bytes(dropped)),
          std::move(ev),
          "The job itself evicts the pages it reads again (POSIX_FADV_DONTNEED, "
          "madvise(MADV_PAGEOUT/DONTNEED) on a file mapping, truncating or rewriting the files, "
          "or writing /proc/sys/vm/drop_caches), not memory pressure: more memory will not help. "
          "Unless cold reads are the point (a storage benchmark), drop only data that will not be "
          "read again, or let the kernel manage the cache."},
         miss_share});
}

// readahead_waste: readahead brought in pages the job never read, before
// they were evicted or by the end of the recording: the disk did work for
// nothing (and evicted pages pushed useful ones out). "Never read" comes from
// the job's reads of those pages (model/readahead_judge.h), not from the
// page's referenced flag, which reclaim clears: a stream read to the end
// inside a too-small memory cgroup wastes nothing.
void readahead_waste(const model::Report& r, const Thresholds& t, Candidates& out) {
    if (!recording::probe_live(r.capture, recording::kProbePageCache)) return;
    const auto& pc = r.page_cache;
    const uint64_t in = pc.brought_in();
    const uint64_t unread = pc.readahead_unused_bytes + pc.readahead_unread_bytes;
    if (in < t.readahead_min_bytes || unread == 0) return;
    const double share = static_cast<double>(unread) / static_cast<double>(in);
    if (share < t.readahead_waste_share) return;

    model::Evidence ev;
    ev.bytes("readahead_unused_bytes", pc.readahead_unused_bytes)
        .bytes("readahead_unread_at_end_bytes", pc.readahead_unread_bytes)
        .bytes("readahead_bytes", pc.readahead_bytes)
        .bytes("brought_in_bytes", in)
        .share("waste_share", round4(share));
    // The file with the most readahead never read, when one is listed.
    const auto never_read = [](const model::FileStats& f) {
        return f.page_cache.readahead_unused_bytes + f.page_cache.readahead_unread_bytes;
    };
    const model::FileStats* worst = nullptr;
    for (const auto& f : r.files)
        if (never_read(f) && (!worst || never_read(f) > never_read(*worst))) worst = &f;
    if (worst) {
        ev.text("worst_file", worst->path);
        ev.bytes("worst_file_unused_bytes", never_read(*worst));
    }
    std::string what;
    if (pc.readahead_unused_bytes) what = human_bytes(pc.readahead_unused_bytes) + " evicted unread";
    if (pc.readahead_unread_bytes)
        what += (what.empty() ? "" : ", ") + human_bytes(pc.readahead_unread_bytes) + " not read by the end";
    out.push_back({{"readahead_waste",
                    share >= t.readahead_waste_high_share ? model::Severity::High : model::Severity::Warn,
                    fmt::format("{} of what was brought in was read ahead and never read ({} of {}: {})",
                                pct(share), human_bytes(unread), human_bytes(in), what),
                    std::move(ev),
                    "Readahead fetches pages the reader never uses, so access is random or "
                    "sparse: call posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM) on those files, "
                    "madvise(MADV_RANDOM) on mmap'd data (numpy memmap, LMDB, Arrow), or lower "
                    "the device readahead (blockdev --setra <sectors> /dev/X, or "
                    "/sys/block/X/queue/read_ahead_kb: the kernel default is 128 KiB, tuned "
                    "systems often set MiBs). Better still, make the access sequential (shuffle "
                    "shards, not samples)."},
                   share / t.readahead_waste_share});
}

}  // namespace iolens::analysis::detail

namespace iolens::analysis::detail {

// mmap_random: faults on a file's mappings brought in many times the pages
// the job faulted on. Each major fault reads a window around the faulting
// page (mmap read-around, 128 KiB by default); a random scan uses one page of
// it. A sequential scan takes about one major fault per pass (readahead keeps
// ahead of it), so it does not reach mmap_min_major_faults.
void mmap_random(const model::Report& r, const Thresholds& t, Candidates& out) {
    if (!recording::probe_live(r.capture, recording::kProbePageCache)) return;
    constexpr uint64_t kPage = 4096;  // what one major fault touched, at least
    uint64_t in = 0, majors = 0, files = 0;
    const model::FileStats* worst = nullptr;
    double worst_amp = 0;
    for (const auto& f : r.files) {
        const auto& pc = f.page_cache;
        if (pc.fault_bytes < t.mmap_min_fault_bytes || pc.major_faults < t.mmap_min_major_faults) continue;
        const double amp = static_cast<double>(pc.fault_bytes) / static_cast<double>(pc.major_faults * kPage);
        if (amp < t.mmap_amplification) continue;
        ++files;
        in += pc.fault_bytes;
        majors += pc.major_faults;
        if (amp > worst_amp) worst_amp = amp, worst = &f;
    }
    if (!worst) return;
    const double amp = static_cast<double>(in) / static_cast<double>(majors * kPage);
    model::Evidence ev;
    ev.count("files", files)
        .bytes("fault_in_bytes", in)
        .count("major_faults", majors)
        .bytes("touched_bytes", majors * kPage)
        .ratio("fault_in_over_touched", round4(amp))
        .bytes("mapped_bytes", r.totals[IOLENS_OP_MMAP].requested_bytes)
        .text("worst_file", worst->path)
        .ratio("worst_file_fault_in_over_touched", round4(worst_amp));
    out.push_back(
        {{"mmap_random", model::Severity::Warn,
          fmt::format("page faults on mapped files brought in {:.0f}x the pages they faulted on ({} for "
                      "{} major faults)",
                      amp, human_bytes(in), human_count(majors)),
          std::move(ev),
          "The mapping is read at random (numpy memmap, LMDB, Arrow): every page fault reads "
          "the pages around it too, and the job uses one. Call madvise(MADV_RANDOM) on the "
          "mapping (Python: mmap.mmap(...).madvise(mmap.MADV_RANDOM)) so a fault reads only its "
          "page, or read the samples with pread (os.pread, np.fromfile with offset=) instead of "
          "through the mapping. Sort each batch's indices by offset if the order is free."},
         amp / t.mmap_amplification});
}

}  // namespace iolens::analysis::detail
