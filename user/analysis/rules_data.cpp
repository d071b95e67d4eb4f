// Rules on the shape of the data path: how big the reads are, whether they
// are sequential, how much metadata work surrounds them, how big the files are.
// They need only the syscall probe, which every capture has.
#include <fmt/format.h>

#include <algorithm>

#include "analysis/rules.h"

namespace iolens::analysis::detail {

using nlohmann::json;

namespace {

constexpr int kMetadataOps[] = {IOLENS_OP_OPEN, IOLENS_OP_CLOSE, IOLENS_OP_STAT, IOLENS_OP_READDIR};

// Calls of a histogram below `limit` bytes (whole power-of-two buckets only,
// so a lower bound when limit is not a power of two).
uint64_t count_below(const model::Histogram& h, uint64_t limit) {
    uint64_t n = 0;
    for (const auto& b : h.buckets())
        if (b.hi <= limit) n += b.count;
    return n;
}

}  // namespace

// small_reads: the median read is small, there are many of them, and the
// time spent in the small ones is a noticeable share of the capture. Sizes
// and latencies are kept apart, so that time is estimated: the larger of
// the read time in proportion to the small calls' bytes (a cost per byte)
// and the time of as many of the quickest reads as there were small ones
// (a cost per call: small reads are the quick ones). A loader that parses
// a header in a hundred 64-byte reads beside each 1 MiB sample has a tiny
// median, but its read time is the large reads'.
void small_reads(const model::Report& r, const Thresholds& t, Candidates& out) {
    const auto& rd = r.totals[IOLENS_OP_READ];
    const uint64_t sized = rd.size_bytes.count();
    if (rd.calls < t.small_reads_min_calls || sized == 0) return;
    const uint64_t p50 = rd.size_bytes.percentile(0.50);
    if (p50 >= t.small_read_bytes) return;
    const uint64_t small_calls = count_below(rd.size_bytes, t.small_read_bytes);
    uint64_t small_bytes = 0;  // at most: each small call at its bucket's top
    for (const auto& b : rd.size_bytes.buckets())
        if (b.hi <= t.small_read_bytes) small_bytes += b.count * b.hi;
    small_bytes = std::min(small_bytes, rd.bytes);
    const uint64_t by_bytes =
        rd.bytes ? static_cast<uint64_t>(static_cast<double>(rd.time_ns) * static_cast<double>(small_bytes) /
                                         static_cast<double>(rd.bytes))
                 : 0;
    const uint64_t small_time =
        std::min(rd.time_ns, std::max(by_bytes, rd.latency_ns.sum_of_smallest(small_calls)));
    if (!time_matters(r, t, small_time)) return;

    model::Evidence ev;
    ev.count("read_calls", rd.calls)
        .bytes("read_bytes", rd.bytes)
        .bytes("p50_read_bytes", p50)
        .bytes("mean_read_bytes", rd.bytes / sized)
        .bytes("small_read_limit_bytes", t.small_read_bytes)
        .share("small_call_share", round4(static_cast<double>(small_calls) / static_cast<double>(sized)))
        .ns("read_time_ns", rd.time_ns)
        .ns("small_read_time_ns", small_time);
    if (const auto s = capture_share(r, rd.time_ns)) ev.share("read_time_capture_share", round4(*s));
    // AIO and io_uring reads are counted above like the others; how many there were.
    const uint64_t async_reads = r.paths.by[IOLENS_PATH_AIO][IOLENS_OP_READ].calls +
                                 r.paths.by[IOLENS_PATH_IO_URING][IOLENS_OP_READ].calls;
    if (async_reads) ev.count("async_read_calls", async_reads);
    out.push_back(
        {{"small_reads", model::Severity::Warn,
          fmt::format("most reads return less than {} (median {} over {} reads)",
                      human_bytes(t.small_read_bytes), human_bytes(p50), human_count(rd.calls)),
          std::move(ev),
          "Read in larger requests: pack samples into shards or records of 1-100 MiB "
          "(WebDataset tar, TFRecord, LMDB, HDF5 chunks) and read them in >= 1 MiB "
          "calls (a larger buffering= on open(), larger chunk/record sizes). On "
          "network or parallel file systems every small read is a round trip; with "
          "DataLoader, more num_workers hides some of the latency but not the cost."},
         static_cast<double>(t.small_read_bytes) / static_cast<double>(std::max<uint64_t>(p50, 1))});
}

// random_access: over files accessed often enough to have an order (by the
// number of accesses, whatever the file's size or the bytes it returned),
// most accesses did not continue where the previous one ended.
void random_access(const model::Report& r, const Thresholds& t, Candidates& out) {
    uint64_t seq = 0, rnd = 0, files = 0, read_bytes = 0, read_calls = 0;
    const model::FileStats* worst = nullptr;
    uint64_t worst_random = 0;
    for (const auto& f : r.files) {
        const auto& rd = f.ops[IOLENS_OP_READ];
        if (f.software || f.sequential + f.random < t.random_min_file_accesses) continue;
        ++files;
        seq += f.sequential;
        rnd += f.random;
        read_bytes += rd.bytes;
        read_calls += rd.calls;
        if (f.random > worst_random) worst_random = f.random, worst = &f;
    }
    if (seq + rnd < t.random_min_accesses || read_calls == 0) return;
    const double share = static_cast<double>(rnd) / static_cast<double>(seq + rnd);
    if (share < t.random_share) return;
    const uint64_t mean = read_bytes / read_calls;
    const bool large = mean >= t.random_large_read_bytes;

    model::Evidence ev;
    ev.count("files", files)
        .count("random_accesses", rnd)
        .count("sequential_accesses", seq)
        .share("random_share", round4(share))
        .bytes("read_bytes", read_bytes)
        .bytes("mean_read_bytes", mean);
    if (worst) {
        ev.text("most_random_file", worst->path);
        ev.count("most_random_file_random_accesses", worst->random);
    }
    std::string rec = large
                          ? "Reads are large, so random order costs little on SSDs; on HDDs or parallel file "
                            "systems shuffle at the shard level instead of the sample level."
                          : "Shuffle shards, not samples: write the data as shards (WebDataset, TFRecord) "
                            "read sequentially with a shuffle buffer, or sort each batch's indices by "
                            "offset. For inherently random readers (LMDB, HDF5, numpy memmap), call "
                            "posix_fadvise(POSIX_FADV_RANDOM) / madvise(MADV_RANDOM) so readahead "
                            "stops fetching unused pages, or stage the data on node-local NVMe or tmpfs.";
    out.push_back({{"random_access", large ? model::Severity::Info : model::Severity::Warn,
                    fmt::format("{} of accesses to {} data files are random (mean read {})", pct(share),
                                files, human_bytes(mean)),
                    std::move(ev), std::move(rec)},
                   share / t.random_share});
}

// metadata_heavy: open/close/stat/readdir take a large share of the file
// I/O time, or there are many opens per MiB read.
void metadata_heavy(const model::Report& r, const Thresholds& t, Candidates& out) {
    // The data's calls: not start-up, not software, not the flush of written files.
    const model::OpTable& ops = data_ops(r);
    uint64_t md_calls = 0, md_time = 0;
    json per_class = json::object();
    for (int op : kMetadataOps) {
        const auto& s = ops[op];
        md_calls += s.calls;
        md_time += s.time_ns;
        per_class[model::op_name(op)] = {{"calls", s.calls}, {"time_ns", s.time_ns}};
    }
    if (md_calls < t.metadata_min_calls) return;
    const auto& rd = ops[IOLENS_OP_READ];
    const auto& wr = ops[IOLENS_OP_WRITE];
    const uint64_t data_time = rd.time_ns + wr.time_ns;
    const double share =
        md_time + data_time ? static_cast<double>(md_time) / static_cast<double>(md_time + data_time) : 0.0;
    const uint64_t opens = ops[IOLENS_OP_OPEN].calls;
    const double mib_read = static_cast<double>(rd.bytes) / static_cast<double>(kMiB);
    // With nothing read, any open is "per MiB" infinite: judge by time only.
    const double opens_per_mib = rd.bytes ? static_cast<double>(opens) / mib_read : 0.0;

    model::Severity severity;
    double magnitude = 0;
    if (share >= t.metadata_time_share && time_matters(r, t, md_time)) {
        severity = share >= t.metadata_high_time_share ? model::Severity::High : model::Severity::Warn;
        magnitude = share / t.metadata_time_share;
    } else if (rd.bytes && opens_per_mib >= t.metadata_opens_per_mib) {
        severity = model::Severity::Info;
        magnitude = opens_per_mib / t.metadata_opens_per_mib;
    } else {
        return;
    }
    model::Evidence ev;
    ev.count("metadata_calls", md_calls)
        .ns("metadata_time_ns", md_time)
        .count("data_calls", rd.calls + wr.calls)
        .ns("data_time_ns", data_time)
        .share("metadata_time_share", round4(share))
        .count("opens", opens)
        .bytes("read_bytes", rd.bytes)
        .maybe("opens_per_mib", model::Unit::Number,
               rd.bytes ? std::optional<double>(round4(opens_per_mib)) : std::nullopt)
        .details("by_class", std::move(per_class));
    out.push_back({{"metadata_heavy", severity,
                    fmt::format("metadata calls take {} of file I/O time ({} calls)", pct(share),
                                human_count(md_calls)),
                    std::move(ev),
                    "Open each file once and keep it open (persistent_workers=True so DataLoader "
                    "workers keep their handles across epochs; cache file lists instead of "
                    "os.listdir/glob/os.path.exists per sample), and pack small files into "
                    "shards (WebDataset, TFRecord, LMDB). On Lustre/GPFS, metadata goes to a "
                    "shared server: staging to node-local NVMe or tmpfs removes it."},
                   magnitude});
}

// many_small_files: many distinct files read, most of them small; or an
// epoch that opens a very large number of files for little data each.
void many_small_files(const model::Report& r, const Thresholds& t, Candidates& out) {
    std::vector<uint64_t> sizes;
    for (const auto& f : r.files) {
        const auto& rd = f.ops[IOLENS_OP_READ];
        if (rd.calls == 0 || f.software) continue;  // the dataset only
        // The size seen at open; what was read when the size is unknown.
        sizes.push_back(f.size ? f.size : rd.bytes);
    }
    // Files left out of the list moved fewer bytes than every listed one:
    // count them as read files (an upper bound when some were only written).
    uint64_t files_read = sizes.size() + r.files_omitted;
    if (r.split.known)
        files_read = std::min(files_read, std::max<uint64_t>(r.split.data_files, sizes.size()));
    const model::OpTable& ops = data_ops(r);
    const auto& rd = ops[IOLENS_OP_READ];

    std::optional<uint64_t> median;
    if (!sizes.empty()) {
        auto mid = sizes.begin() + static_cast<std::ptrdiff_t>(sizes.size() / 2);
        std::nth_element(sizes.begin(), mid, sizes.end());
        median = *mid;
    }
    const bool by_files = files_read >= t.small_files_min_files && median && *median < t.small_file_bytes;

    // The epoch that opened the most files, when it read little per open.
    // Many opens of few data files (one HDF5 file reopened per sample) is
    // metadata work, not a dataset to pack: it needs many files too.
    const bool many_files = !r.split.known || r.split.data_files >= t.small_files_min_files;
    const model::EpochStats* busiest = nullptr;
    for (const auto& e : r.epochs) {
        if (!many_files) break;
        const auto& o = e.ops[IOLENS_OP_OPEN];
        if (o.calls >= t.small_files_epoch_opens &&
            e.ops[IOLENS_OP_READ].bytes / o.calls < t.small_file_bytes &&
            (!busiest || o.calls > busiest->ops[IOLENS_OP_OPEN].calls))
            busiest = &e;
    }
    if (!by_files && !busiest) return;
    if (!time_matters(r, t, rd.time_ns + ops[IOLENS_OP_OPEN].time_ns)) return;

    model::Evidence ev;
    ev.count("files_read", files_read)
        .count("files_listed", sizes.size())
        .maybe("median_file_bytes", model::Unit::Bytes, median)
        .maybe("read_bytes_per_file", model::Unit::Bytes,
               files_read ? std::optional<uint64_t>(rd.bytes / files_read) : std::nullopt)
        .count("opens", ops[IOLENS_OP_OPEN].calls);
    if (busiest) {
        ev.id("busiest_epoch", busiest->index);
        ev.count("busiest_epoch_opens", busiest->ops[IOLENS_OP_OPEN].calls);
    }
    const std::string title =
        by_files ? fmt::format("{} files read, median size {}", human_count(files_read), human_bytes(*median))
                 : fmt::format(
                       "epoch {} opened {} files for {} each", busiest->index,
                       human_count(busiest->ops[IOLENS_OP_OPEN].calls),
                       human_bytes(busiest->ops[IOLENS_OP_READ].bytes / busiest->ops[IOLENS_OP_OPEN].calls));
    const double magnitude =
        by_files ? static_cast<double>(files_read) / static_cast<double>(t.small_files_min_files)
                 : static_cast<double>(busiest->ops[IOLENS_OP_OPEN].calls) /
                       static_cast<double>(t.small_files_epoch_opens);
    out.push_back({{"many_small_files", model::Severity::Warn, title, std::move(ev),
                    "Pack the samples into fewer, larger files of 100 MiB-1 GiB (WebDataset tar "
                    "shards, TFRecord, LMDB, HDF5, Parquet) so each open serves thousands of "
                    "samples; or copy the dataset to node-local NVMe or tmpfs before training "
                    "(one bulk copy instead of a remote open per sample per epoch)."},
                   magnitude});
}

}  // namespace iolens::analysis::detail
