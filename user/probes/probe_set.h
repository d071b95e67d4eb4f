#pragma once
// Loads and attaches iolens's BPF probe families, choosing for each the best
// hook this kernel accepts, and owns every kernel resource they create. The
// first family loaded creates the shared maps (tracked processes, ring buffer,
// counters); the others reuse them.
//
// Lifecycle: open -> set sizes and tunables -> load -> attach, as libbpf wants.
// Destroying the ProbeSet releases everything (links, programs, maps).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/report.h"
#include "probes/features.h"
#include "probes/tracked_set.h"
#include "util/result.h"

namespace iolens::probes {

struct ProbeOptions {
    uint64_t ringbuf_bytes = 64ull << 20;  // power of two, multiple of the page size
    uint64_t wakeup_bytes = 256 << 10;     // wake the consumer once this much is queued
    // Use only this hook kind ("tp_btf" or "raw_tp") instead of the best one:
    // lets tests run the fallback path on kernels that have the preferred one.
    std::string force_hook;
};

class ProbeSet {
public:
    static Result<std::unique_ptr<ProbeSet>> load(const Features& features, const ProbeOptions& options);
    ~ProbeSet();
    ProbeSet(const ProbeSet&) = delete;
    ProbeSet& operator=(const ProbeSet&) = delete;

    // Attaches every loaded program. Process tracking attaches before syscalls
    // so that no child forked during the attach escapes.
    Result<void> attach();
    // Detaches every program (no new events) but keeps the maps, so the ring
    // buffer can be drained and the counters read afterwards.
    void detach();

    const std::vector<model::ProbeStatus>& statuses() const { return statuses_; }
    int ringbuf_fd() const;
    TrackedSet& tracked() { return tracked_; }
    // Kernel counters summed over CPUs, by name (see enum iolens_counter).
    std::map<std::string, uint64_t> read_counters() const;

private:
    ProbeSet() = default;
    struct Skeletons;
    std::unique_ptr<Skeletons> skels_;
    std::vector<model::ProbeStatus> statuses_;
    TrackedSet tracked_;
};

// Names of enum iolens_counter slots, as they appear in reports.
const char* counter_name(int counter);

}  // namespace iolens::probes
