#include "recording/capture.h"

namespace iolens::recording {

// The kernel's internal dev_t (MINORBITS = 20), not the user-space encoding.
uint32_t dev_major(uint32_t dev) { return dev >> 20; }
uint32_t dev_minor(uint32_t dev) { return dev & 0xfffff; }

bool probe_live(const CaptureInfo& capture, std::string_view name) {
    for (const auto& p : capture.probes)
        if (p.attached && p.name == name) return true;
    return false;
}

std::string probe_missing_reason(const CaptureInfo& capture, std::string_view name) {
    const std::string probe = "probe " + std::string(name);
    for (const auto& p : capture.probes)
        if (p.name == name && !p.attached)
            return probe + " not attached" + (p.reason.empty() ? "" : ": " + p.reason);
    if (probe_live(capture, name)) return "";
    return probe + " was not part of this capture";
}

uint64_t CostInfo::bpf_run_ns() const {
    uint64_t t = 0;
    for (const auto& p : bpf) t += p.run_ns;
    return t;
}

uint64_t CostInfo::bpf_runs() const {
    uint64_t n = 0;
    for (const auto& p : bpf) n += p.runs;
    return n;
}

std::string device_name(const CaptureInfo& capture, uint32_t dev) {
    if (auto it = capture.devices.find(dev); it != capture.devices.end() && !it->second.empty())
        return it->second;
    return std::to_string(dev_major(dev)) + ":" + std::to_string(dev_minor(dev));
}

std::optional<uint64_t> CostInfo::bpf_ns_per_run() const {
    const uint64_t runs = bpf_runs();
    if (runs == 0) return std::nullopt;
    return bpf_run_ns() / runs;
}

std::optional<double> CostInfo::share_of_job_cpu(uint64_t ns) const {
    if (!job_cpu_ns || *job_cpu_ns == 0) return std::nullopt;
    return static_cast<double>(ns) / static_cast<double>(*job_cpu_ns);
}

}  // namespace iolens::recording
