// The DataLoader input pipeline shared by `dl` (one process over the whole
// dataset) and `ranks` (one such pipeline per rank process, over its share).
#pragma once

#include <cstdint>
#include <vector>

namespace wl {

struct PipelineConfig {
    const char* dir = nullptr;
    std::vector<uint32_t> share;  // the sample indices this process loads (dl: 0..N-1)
    uint64_t size = 0;            // bytes per sample file
    uint64_t epochs = 1;
    uint32_t workers = 1;
    uint64_t read_size = 65536;
    uint64_t compute_ns = 0;  // main's spin per sample
    uint64_t seed = 1;
    bool markers = false;     // epoch markers (+ end) in main
    uint64_t steps = 0;       // with markers: a step marker every `steps` samples (0: none)
    bool persistent = false;  // fork the workers once, reuse them every epoch
    uint32_t repeat = 1;      // load (open, read to EOF, close) every sample this many times
    bool drop_after = false;  // fadvise64(DONTNEED) of each sample after reading it, before its close
};

// Runs every epoch; returns the digest of the sample checksums consumed, in
// sampler order (it depends on the dataset, the share and the seed only).
uint64_t run_pipeline(const PipelineConfig& cfg);

}  // namespace wl
