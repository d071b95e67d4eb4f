// Rules on the page cache. They need the page-cache probe family: without it
// the PageCacheStats are all zero (unknown, not "no misses") and these rules
// stay silent.
#include <fmt/format.h>

#include "analysis/rules.h"

namespace iolens::analysis::detail {

using nlohmann::json;

// dataset_exceeds_cache: epochs after the first keep bringing most of what
// they read into the cache again, so the data set (or the part of it this
// node reads) does not stay cached between epochs.
void dataset_exceeds_cache(const model::Report& r, const Thresholds& t, Candidates& out) {
    if (!recording::probe_live(r.capture, recording::kProbePageCache)) return;
    uint32_t judged = 0;
    json missing = json::array();
    double hit_sum = 0;
    uint64_t miss_bytes = 0, read_bytes = 0;
    for (const auto& e : r.epochs) {
        if (e.index < t.cache_min_epoch_index) continue;
        const uint64_t rb = e.ops[IOLENS_OP_READ].bytes;
        const auto hit = e.page_cache.hit_ratio();
        if (rb < t.cache_min_epoch_read_bytes || !hit) continue;
        ++judged;
        const double miss_share = static_cast<double>(e.page_cache.miss_bytes) / static_cast<double>(rb);
        if (*hit > t.cache_max_hit_ratio || miss_share < t.cache_min_miss_share) continue;
        hit_sum += *hit;
        miss_bytes += e.page_cache.miss_bytes;
        read_bytes += rb;
        missing.push_back({{"epoch", e.index},
                           {"read_bytes", rb},
                           {"miss_bytes", e.page_cache.miss_bytes},
                           {"hit_ratio", round4(*hit)},
                           {"evicted_bytes", e.page_cache.evicted_bytes}});
    }
    // "Keep missing": at least half of the epochs that could be judged.
    const uint32_t n = static_cast<uint32_t>(missing.size());
    if (n == 0 || 2 * n < judged) return;
    const double mean_hit = hit_sum / n;

    model::Evidence ev;
    ev.count("epochs_judged", judged)
        .count("epochs_missing", n)
        .share("mean_hit_ratio", round4(mean_hit))
        .bytes("miss_bytes", miss_bytes)
        .bytes("read_bytes", read_bytes)
        .bytes("evicted_bytes", r.page_cache.evicted_bytes)
        .details("epochs", std::move(missing));
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

// readahead_waste: readahead brought in pages that were evicted without ever
// being read: the disk did work for nothing and pushed useful pages out.
void readahead_waste(const model::Report& r, const Thresholds& t, Candidates& out) {
    if (!recording::probe_live(r.capture, recording::kProbePageCache)) return;
    const auto& pc = r.page_cache;
    const uint64_t in = pc.brought_in();
    if (in < t.readahead_min_bytes || pc.readahead_unused_bytes == 0) return;
    const double share = static_cast<double>(pc.readahead_unused_bytes) / static_cast<double>(in);
    if (share < t.readahead_waste_share) return;

    model::Evidence ev;
    ev.bytes("readahead_unused_bytes", pc.readahead_unused_bytes)
        .bytes("readahead_bytes", pc.readahead_bytes)
        .bytes("brought_in_bytes", in)
        .share("waste_share", round4(share));
    // The file with the most readahead evicted unused, when one is listed.
    const model::FileStats* worst = nullptr;
    for (const auto& f : r.files)
        if (f.page_cache.readahead_unused_bytes &&
            (!worst || f.page_cache.readahead_unused_bytes > worst->page_cache.readahead_unused_bytes))
            worst = &f;
    if (worst) {
        ev.text("worst_file", worst->path);
        ev.bytes("worst_file_unused_bytes", worst->page_cache.readahead_unused_bytes);
    }
    out.push_back({{"readahead_waste",
                    share >= t.readahead_waste_high_share ? model::Severity::High : model::Severity::Warn,
                    fmt::format("{} of readahead ({} of {} brought in) was evicted unread", pct(share),
                                human_bytes(pc.readahead_unused_bytes), human_bytes(in)),
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
