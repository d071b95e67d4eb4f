#pragma once
// Builds the Report from the raw records the kernel emitted (struct
// iolens_*_rec from iolens/abi.h), in the order they were recorded. Used live by
// `record` and again by `report` on a recording file: the same code both times.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>

#include "model/report.h"
#include "util/result.h"

namespace iolens::model {

struct BuilderOptions {
    size_t max_files = 10000;  // files listed in the report; the rest are counted
    // The one environment variable naming a process's rank (--rank-env VAR);
    // empty: the precedence list of model/rank_env.h.
    std::string rank_env_override;
    // Ranks, epochs and stalls (Report::ranks, epochs, rank_imbalance). They
    // need a compact log of every event (model/dl_log.h, ~10-16 bytes a call);
    // false leaves them empty and keeps memory flat for huge captures.
    bool dl_attribution = true;
    // Calls the DL attribution holds back to put each rank's calls in start
    // order (model/start_order.h); past it, a call arriving later than that
    // makes it sort them all instead. Tests lower it to take that path.
    size_t reorder_calls = size_t{1} << 16;
    // Runs of reads kept for the readahead judgement (readahead_judge.h, 32
    // bytes each). Past it a file's further reads are not kept and its
    // read-ahead pages are not judged (counted neither read nor unused), so
    // memory stays bounded on a recording of any size. Tests lower it.
    size_t max_read_spans = size_t{1} << 21;
    // Bins of Report::timeline (the HTML report's); 0 leaves it out, and its
    // cost (a second stall sweep over the calls) with it.
    size_t timeline_bins = 0;
    // Threads the walks of the DL log in finish() may use (0: the CPUs there
    // are, at most 4; builder_threads): 1 walks everything on the calling
    // thread; more runs the independent walks side by side and splits the
    // ranks' start-order walks into that many groups (dl_attribution.cpp);
    // load_recording also walks the records on two threads (prepare_records)
    // unless it is 1. The report is the same whatever the number; tests
    // compare 1 with more.
    size_t threads = 0;
};

// BuilderOptions::threads as used: 0 becomes the CPUs there are, at most 4.
size_t builder_threads(size_t asked);

class ReportBuilder {
public:
    explicit ReportBuilder(BuilderOptions options = {});
    ~ReportBuilder();
    ReportBuilder(const ReportBuilder&) = delete;
    ReportBuilder& operator=(const ReportBuilder&) = delete;

    void set_capture(const CaptureInfo& capture);
    // A process known before its first event (the launched command, or a process
    // found under the -p target at attach time).
    void add_process(const ProcessInfo& info);
    // The rank-related environment variables of a process (an ENV chunk):
    // only those, see model/rank_env.h. A later call for the pid replaces them.
    void add_process_env(uint32_t pid, const std::map<std::string, std::string>& vars);
    // A byte stream of whole records. Stops at the first malformed record and
    // returns an error naming its byte offset in `records` (the records before
    // it are kept). Records of unknown type are skipped by their size.
    Result<void> add_records(std::span<const std::byte> records);
    // Two threads for the walk: after prepare_ahead(), every span given to
    // add_records must first have been given to prepare_records, in the same
    // order (the same bytes), which may run on another thread, ahead of
    // add_records (a reader's: recording::read_file_streaming's `prepare`).
    // prepare_records walks the records for the files and streams (half of
    // the walk's cost: their tables are large and probed at random) and
    // add_records for the rest; the report is the same as from add_records
    // alone. Calls of one of them must not overlap each other; every span
    // prepared must then be given to add_records (a span prepared and never
    // added would count in the files' figures); finish() or take() comes
    // after the last of both (not while spans are being prepared).
    void prepare_ahead();
    void prepare_records(std::span<const std::byte> records);
    uint64_t records_seen() const;     // well-formed records walked, skipped ones included
    uint64_t records_skipped() const;  // unknown record types, syscall classes or page-cache
                                       // kinds (newer kernel side)

    Report finish() const;
    // As finish(), for the last report: what it no longer needs (streams,
    // files) is freed as soon as it has been read, so the peak is lower; the
    // builder is spent.
    Report take();

    struct State;  // report_builder.cpp's

private:
    std::unique_ptr<State> state_;
};

}  // namespace iolens::model
