#pragma once
// What a recording says about its capture: the META, PROCESS and END chunks'
// schema (recording/capture_json.h is their JSON codec). Probes and capture
// fill these in; the model and the renderers read them. Nothing here depends
// on the model.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace iolens::recording {

struct ProbeStatus {
    std::string name;  // probe family / program, e.g. "syscalls"
    std::string hook;  // e.g. "tp_btf/sys_enter"
    bool attached = false;
    std::string reason;  // why not attached, or what was chosen and why
};

// What tracing cost, measured by the recorder itself. Absent (nullopt) in a
// recording made before iolens measured it.
struct ProgramCost {
    std::string family;   // probe family
    uint64_t run_ns = 0;  // time spent in its programs...
    uint64_t runs = 0;    // ...over this many runs (every task, tracked or not)
    // What the recorder reads, not recorded: every run of its programs,
    // counted by the programs themselves, and the runs they timed (one in
    // 2^IOLENS_TIMED_SHIFT) with their time (bpf/common.bpf.h, iolens_runs);
    // run_ns and runs above are the kernel's statistics until RecordSession
    // turns them into what is recorded.
    uint64_t counted_runs = 0;
    uint64_t timed_runs = 0;
    uint64_t timed_ns = 0;
};
struct CostInfo {
    uint64_t attach_ns = 0;  // `iolens record` start until the probes were live
    // The BPF programs' run time, per family; empty with
    // bpf_stats_unavailable saying why when it was not measured. Since
    // bpf_timed_every: every run counted and one in bpf_timed_every timed by
    // the programs themselves (bpf_sampled_share: the share of runs timed),
    // the time an estimate scaled to all the runs. Before (0): the kernel's
    // BPF run-time statistics (BPF_ENABLE_STATS), on in sampled windows
    // covering bpf_sampled_share of the capture and scaled to the whole of
    // it. 1 with 0: the kernel's statistics throughout, every run measured.
    std::vector<ProgramCost> bpf;
    double bpf_sampled_share = 1.0;
    uint64_t bpf_timed_every = 0;
    std::string bpf_stats_unavailable;
    uint64_t recorder_cpu_ns = 0;         // the recorder's own user + system CPU time
    uint64_t recorder_max_rss_bytes = 0;  // its peak resident memory
    // CPU time of the traced job (the command and the descendants it waited
    // for; with -p the target's own and its reaped children's CPU during the
    // capture). nullopt with job_cpu_unavailable saying why.
    std::optional<uint64_t> job_cpu_ns;
    std::string job_cpu_unavailable;

    uint64_t bpf_run_ns() const;
    uint64_t bpf_runs() const;
    // Mean time of one BPF program run; empty without runs.
    std::optional<uint64_t> bpf_ns_per_run() const;
    // ns as a share of the job's CPU time; empty when that is unknown or 0.
    std::optional<double> share_of_job_cpu(uint64_t ns) const;
};

struct CaptureInfo {
    std::vector<std::string> command;  // launched command, empty with -p
    std::vector<uint32_t> pids;        // the target pids given or launched
    uint64_t start_unix_ns = 0;
    uint64_t start_mono_ns = 0;  // CLOCK_MONOTONIC at start (event clock)
    // Clock anchors for aligning nodes (issue #16): CLOCK_REALTIME and
    // CLOCK_MONOTONIC read together (monotonic, realtime, monotonic: the pair
    // of the shortest of three tries, uncertainty half its gap) when tracing
    // went live and when it ended. 0: not recorded (older recordings).
    uint64_t anchor_start_realtime_ns = 0, anchor_start_monotonic_ns = 0;
    uint64_t anchor_end_realtime_ns = 0, anchor_end_monotonic_ns = 0;
    uint64_t anchor_uncertainty_ns = 0;  // the larger of the two pairs'
    std::string job_id;                  // the batch system's (SLURM_JOB_ID, ...), or empty
    std::string job_id_source;           // the variable it came from
    // --cgroup: the cgroup v2 group traced (its path and id), or empty / 0.
    std::string cgroup_path;
    uint64_t cgroup_id = 0;
    // record --stacks as given ("first,1/64"), "" when stacks were not taken.
    std::string stacks;
    uint64_t duration_ns = 0;
    uint64_t events = 0;                          // records received from the kernel
    uint64_t lost_events = 0;                     // everything lost anywhere (sum of lost_detail)
    std::map<std::string, uint64_t> lost_detail;  // reason -> count
    std::vector<ProbeStatus> probes;
    std::string hostname;
    std::string kernel_release;
    std::string iolens_version;
    std::optional<int> exit_status;                   // of the launched command
    std::map<std::string, uint64_t> kernel_counters;  // the BPF side's counters at the end
    std::string stop_reason;                          // why recording ended (signal, duration, ...)
    // Set when the recording did not end cleanly (recorder killed, file
    // truncated or corrupt): what we know and why the report is partial.
    bool partial = false;
    std::string partial_reason;
    // Kernel dev_t -> device name ("vda", "nvme0n1p1") for the disks and
    // file systems seen, so the report names them without the traced machine.
    std::map<uint32_t, std::string> devices;
    std::optional<CostInfo> cost;  // what iolens itself cost (nullopt: not measured)
};

// Probe family names as CaptureInfo::probes lists them, for the figures
// that exist only when that family was attached.
inline constexpr std::string_view kProbePageCache = "pagecache";
inline constexpr std::string_view kProbeBlocking = "blocking";
inline constexpr std::string_view kProbeBlock = "block";

// True when a probe family of that name was attached: its figures are
// measured. Otherwise they are unknown (shown as null / "n/a"), never 0.
bool probe_live(const CaptureInfo& capture, std::string_view name);
// One line saying why a family's figures are missing: its not-attached reason,
// or that this capture did not include it.
std::string probe_missing_reason(const CaptureInfo& capture, std::string_view name);
// The recorded name of a device, or "major:minor".
std::string device_name(const CaptureInfo& capture, uint32_t dev);

struct ProcessInfo {
    uint32_t pid = 0;
    uint32_t ppid = 0;
    std::string comm;
    std::vector<std::string> cmdline;
    uint64_t start_ns = 0;  // monotonic; 0 if it predates the capture
    uint64_t end_ns = 0;    // monotonic; 0 if still running at the end
    std::optional<int> exit_code;
};

// The kernel's internal dev_t (MINORBITS = 20), as records carry it; not the
// user-space encoding.
uint32_t dev_major(uint32_t dev);
uint32_t dev_minor(uint32_t dev);

}  // namespace iolens::recording
