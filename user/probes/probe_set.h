#pragma once
// Loads and attaches iolens's BPF probe families, choosing for each the best
// hook this kernel accepts, and owns every kernel resource they create.
//
// Maps with the same name in several families (the tracked-process set, the
// ring buffer, the counters, per-thread state, watched inodes) are created by
// the first family that declares them and reused by the others, so all
// families share them. Lifecycle per family: open -> size maps, set tunables,
// reuse shared maps, pick programs -> load -> attach, as libbpf wants.
// Destroying the ProbeSet releases everything (links, programs, maps).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "recording/capture.h"
#include "probes/counters.h"
#include "probes/features.h"
#include "probes/tracked_set.h"
#include "util/result.h"

struct bpf_object;
struct bpf_link;

namespace iolens::probes {

struct ProbeOptions {
    uint64_t ringbuf_bytes = 64ull << 20;  // power of two, multiple of the page size
    // Wake the consumer each time a CPU has produced another 2^wakeup_shift
    // bytes (256 KiB); the consumer also polls on a timer.
    uint32_t wakeup_shift = 18;
    // Use only this hook kind ("tp_btf" or "raw_tp") instead of the best one:
    // lets tests run the fallback path on kernels that have the preferred one.
    std::string force_hook;
    // Use only this build of each family ("direct", "standard", "legacy";
    // see probes::Variant): runs the old-kernel builds on a new kernel.
    std::string force_variant;
    // --cgroup: the cgroup v2 id (its directory's inode) whose members, and
    // the processes that join it or are forked into it, are traced (0: none).
    uint64_t target_cgroup = 0;
    // --stacks: user stacks of file-I/O calls (docs/call-sites.md).
    struct Stacks {
        bool enabled = false;
        bool first = true;     // the first call of each thread on each file
        uint32_t period = 64;  // and one call in `period` of each thread (0: none, 1: all)
    } stacks;
};

class ProbeSet {
public:
    static Result<std::unique_ptr<ProbeSet>> load(const Features& features, const ProbeOptions& options);
    ~ProbeSet();
    ProbeSet(const ProbeSet&) = delete;
    ProbeSet& operator=(const ProbeSet&) = delete;

    // Attaches every loaded family, process tracking first so that no child
    // forked during the attach escapes. Fails only if an essential family
    // (process, syscalls) cannot attach; the others are marked not attached.
    Result<void> attach();
    // Detaches every program (no new events) but keeps the maps, so the ring
    // buffer can be drained and the counters read afterwards.
    void detach();

    const std::vector<recording::ProbeStatus>& statuses() const { return statuses_; }
    int ringbuf_fd() const;
    // A map the families share, by name (-1 if no family has it).
    int map_fd(const std::string& name) const;
    TrackedSet& tracked() { return tracked_; }
    // Kernel counters summed over CPUs, by name (see enum iolens_counter).
    std::map<std::string, uint64_t> read_counters() const;
    // Each family's runs so far as its programs counted and timed them
    // (iolens_runs), and its run time and run count from the kernel's BPF
    // statistics (zero unless a RunStats was enabled meanwhile).
    std::vector<recording::ProgramCost> program_costs() const;

    struct Family;  // one loaded probe family (probe_set.cpp)

private:
    ProbeSet() = default;
    std::vector<std::unique_ptr<Family>> families_;  // in load order
    std::map<std::string, int> shared_maps_;         // name -> fd, owned by the family that created it
    std::vector<recording::ProbeStatus> statuses_;   // parallel to families_
    TrackedSet tracked_;
};

// Names of enum iolens_counter slots, as they appear in reports (kCounters).
const char* counter_name(int counter);

// What a BPF object holds, read from its skeleton without loading it (no
// privileges needed): lets tests check the catalog against bpf/*.bpf.c.
struct ObjectContents {
    std::vector<std::pair<std::string, std::string>>
        programs;                     // (section kind, tracepoint): ("tp_btf", "sys_enter")
    std::vector<std::string> rodata;  // names of its const volatile variables
};
Result<ObjectContents> describe_object(const std::string& object);

}  // namespace iolens::probes
