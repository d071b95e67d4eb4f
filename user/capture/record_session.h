#pragma once
// One `iolens record` run: load and attach the probes, start or adopt the
// target, stream kernel records into the recording file, stop on the right
// condition, and release every kernel resource (record_session.cpp lists the
// steps). The summary is built from the file afterwards (analysis::summarize).
#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <span>
#include <optional>
#include <string>
#include <vector>

#include "capture/cgroup.h"
#include "probes/features.h"
#include "probes/probe_set.h"
#include "recording/recording.h"
#include "util/result.h"

namespace iolens::capture {

struct RecordOptions {
    std::vector<std::string> command;    // launch and trace this...
    std::optional<pid_t> pid;            // ...or attach to this process tree
    std::optional<CgroupTarget> cgroup;  // ...or trace this cgroup v2 group's members
    std::optional<uint64_t> duration_ns;
    std::string output_path = "iolens.data";
    bool force = false;
    bool drop_caches = false;           // sync and drop the page cache before tracing (cold runs)
    std::string rank_env;               // --rank-env: a variable that overrides the standard rank variables
    std::string job_id, job_id_source;  // the batch system's job id (output_template.h), stored in META
    probes::ProbeOptions probe;
    std::string stacks_spec;  // --stacks as given (probe.stacks holds what it means), "" without
    // CLOCK_MONOTONIC when `iolens record` started (0: when run_record was
    // called), so the reported attach time covers feature probing too.
    uint64_t started_mono_ns = 0;
    // How the probes' cost is measured (probes::RunStats): "sampled" (the
    // programs time one run in 64 themselves, scaled to every run),
    // "always" (the kernel's statistics time every run: exact, but they add
    // ~140 ns per traced syscall here), "off" (not measured).
    std::string bpf_stats = "sampled";
    // `iolens top`: every chunk written to the recording is shown to
    // chunk_observer (the live model), and on_tick runs on every turn of the
    // event loop (at least every 50 ms, after the buffered records were
    // written out when 100 ms had passed); it returns true to stop recording
    // (a launched command is then waited for, as when the duration ends),
    // with stop_reason set to say why.
    std::function<void(recording::ChunkType, std::span<const std::byte>)> chunk_observer = {};
    struct LiveStatus {
        uint64_t now_ns = 0;     // CLOCK_MONOTONIC
        uint64_t attach_ns = 0;  // when tracing went live
        uint64_t records = 0;    // delivered to the recorder so far
        // Events lost so far, as the END chunk will count them (reads the
        // kernel's counters: call it when drawing, not on every tick).
        std::function<uint64_t()> lost;
    };
    std::function<bool(const LiveStatus&, std::string& stop_reason)> on_tick = {};
};

struct RecordOutcome {
    int exit_status = 0;         // the command's (shell convention), or 0 with -p
    std::string recording_path;  // where the recording is (output_path, unless naming it failed)
    bool incomplete = false;     // some of it could not be written (disk full): it says how much
};

Result<RecordOutcome> run_record(const RecordOptions& options, const probes::Features& features);

}  // namespace iolens::capture
