#include "recording/capture_json.h"

#include "util/json_text.h"

#include <limits>
#include <optional>

namespace iolens::recording {

using nlohmann::json;

namespace {

// Each decode() returns nullptr when v fits, else what was expected.
const char* decode(const json& v, uint64_t& out) {
    // Non-negative integers parse as unsigned; built in code they may be signed.
    if (v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0)) {
        out = v.get<uint64_t>();
        return nullptr;
    }
    return "a non-negative integer";
}

const char* decode(const json& v, uint32_t& out) {
    uint64_t wide = 0;
    if (decode(v, wide) || wide > std::numeric_limits<uint32_t>::max()) return "a 32-bit unsigned integer";
    out = static_cast<uint32_t>(wide);
    return nullptr;
}

const char* decode(const json& v, int& out) {
    if (!v.is_number_integer()) return "an integer";
    if (v.is_number_unsigned() ? v.get<uint64_t>() > uint64_t{std::numeric_limits<int>::max()}
                               : (v.get<int64_t>() < std::numeric_limits<int>::min() ||
                                  v.get<int64_t>() > std::numeric_limits<int>::max()))
        return "a 32-bit integer";
    out = v.get<int>();
    return nullptr;
}

const char* decode(const json& v, double& out) {
    if (!v.is_number()) return "a number";
    out = v.get<double>();
    return nullptr;
}

const char* decode(const json& v, bool& out) {
    if (!v.is_boolean()) return "true or false";
    out = v.get<bool>();
    return nullptr;
}

// A string, or util/json_text.h's form of one that is not UTF-8.
const char* decode(const json& v, std::string& out) {
    auto text = text_from_json(v);
    if (!text) return "a string";
    out = std::move(*text);
    return nullptr;
}

const char* decode(const json& v, std::optional<int>& out) {
    if (v.is_null()) {
        out.reset();
        return nullptr;
    }
    int x = 0;
    if (decode(v, x)) return "an integer or null";
    out = x;
    return nullptr;
}

const char* decode(const json& v, ProbeStatus& out);  // needs Fields, below
const char* decode(const json& v, ProgramCost& out);  // below
const char* decode(const json& v, std::optional<uint64_t>& out);
const char* decode(const json& v, std::optional<CostInfo>& out);
const char* decode(const json& v, std::map<uint32_t, std::string>& out);  // devices, below

template <typename T>
const char* decode(const json& v, std::vector<T>& out) {
    if (!v.is_array()) return "an array";
    std::vector<T> tmp(v.size());
    for (size_t i = 0; i < v.size(); ++i)
        if (const char* e = decode(v[i], tmp[i])) return e;  // names the element type
    out = std::move(tmp);
    return nullptr;
}

const char* decode(const json& v, std::map<std::string, uint64_t>& out) {
    if (!v.is_object()) return "an object of non-negative integers";
    std::map<std::string, uint64_t> tmp;
    for (const auto& [k, x] : v.items())
        if (decode(x, tmp[k])) return "an object of non-negative integers";
    out = std::move(tmp);
    return nullptr;
}

// Reads the keys of one JSON object into fields, stopping at the first
// mismatch; `where` prefixes the error so it names the full key path.
class Fields {
public:
    Fields(const json& j, std::string where) : j_(j), where_(std::move(where)) {
        if (!j_.is_object())
            error_ = make_error(where_ + ": expected a JSON object, found " + std::string(j_.type_name()));
    }
    template <typename T>
    Fields& get(const char* key, T& out) {
        if (error_ || !j_.contains(key)) return *this;
        if (const char* expected = decode(j_.at(key), out))
            error_ = make_error(where_ + ": key \"" + key + "\" should be " + expected + ", found " +
                                j_.at(key).type_name());
        return *this;
    }
    const std::optional<Error>& error() const { return error_; }

private:
    const json& j_;
    std::string where_;
    std::optional<Error> error_;
};

const char* decode(const json& v, ProbeStatus& out) {
    Fields f(v, "probe");
    f.get("name", out.name).get("hook", out.hook).get("attached", out.attached).get("reason", out.reason);
    return f.error() ? "an object {name, hook, attached, reason} of the right types" : nullptr;
}

// devices: [{"major", "minor", "name"}], major and minor of the kernel's dev_t.
const char* decode(const json& v, std::map<uint32_t, std::string>& out) {
    constexpr const char* expected = "an array of {major, minor, name} objects";
    if (!v.is_array()) return expected;
    std::map<uint32_t, std::string> tmp;
    for (const auto& d : v) {
        uint32_t major = 0, minor = 0;
        std::string name;
        Fields f(d, "device");
        f.get("major", major).get("minor", minor).get("name", name);
        if (f.error() || !d.contains("major") || !d.contains("minor") || major > 0xfff || minor > 0xfffff)
            return expected;
        tmp[major << 20 | minor] = std::move(name);
    }
    out = std::move(tmp);
    return nullptr;
}

// cost: {attach_ns, bpf: [{family, run_ns, runs}], bpf_run_ns, bpf_runs,
// bpf_sampled_share, bpf_timed_every (only when not 0), bpf_stats_unavailable, recorder_cpu_ns,
// recorder_max_rss_bytes, job_cpu_ns (null when unknown), job_cpu_unavailable}. The totals are derived, so
// only written. null: the recording predates cost measurement.
json cost_to_json(const std::optional<CostInfo>& cost) {
    if (!cost) return nullptr;
    json bpf = json::array();
    for (const auto& p : cost->bpf)
        bpf.push_back({{"family", p.family}, {"run_ns", p.run_ns}, {"runs", p.runs}});
    json out = {
        {"attach_ns", cost->attach_ns},
        {"bpf", std::move(bpf)},
        {"bpf_run_ns", cost->bpf_run_ns()},
        {"bpf_runs", cost->bpf_runs()},
        {"bpf_sampled_share", cost->bpf_sampled_share},
        {"bpf_stats_unavailable", cost->bpf_stats_unavailable},
        {"recorder_cpu_ns", cost->recorder_cpu_ns},
        {"recorder_max_rss_bytes", cost->recorder_max_rss_bytes},
        {"job_cpu_ns", cost->job_cpu_ns ? json(*cost->job_cpu_ns) : json(nullptr)},
        {"job_cpu_unavailable", cost->job_cpu_unavailable},
    };
    // Only where the programs timed their own runs: a recording made before
    // keeps the very JSON it had.
    if (cost->bpf_timed_every) out["bpf_timed_every"] = cost->bpf_timed_every;
    return out;
}

const char* decode(const json& v, ProgramCost& out) {
    Fields f(v, "program cost");
    f.get("family", out.family).get("run_ns", out.run_ns).get("runs", out.runs);
    return f.error() ? "an object {family, run_ns, runs} of the right types" : nullptr;
}

const char* decode(const json& v, std::optional<uint64_t>& out) {
    if (v.is_null()) {
        out.reset();
        return nullptr;
    }
    uint64_t x = 0;
    if (decode(v, x)) return "a non-negative integer or null";
    out = x;
    return nullptr;
}

const char* decode(const json& v, std::optional<CostInfo>& out) {
    if (v.is_null()) {
        out.reset();
        return nullptr;
    }
    CostInfo c;
    Fields f(v, "cost");
    f.get("attach_ns", c.attach_ns)
        .get("bpf", c.bpf)
        .get("bpf_sampled_share", c.bpf_sampled_share)
        .get("bpf_timed_every", c.bpf_timed_every)
        .get("bpf_stats_unavailable", c.bpf_stats_unavailable)
        .get("recorder_cpu_ns", c.recorder_cpu_ns)
        .get("recorder_max_rss_bytes", c.recorder_max_rss_bytes)
        .get("job_cpu_ns", c.job_cpu_ns)
        .get("job_cpu_unavailable", c.job_cpu_unavailable);
    if (f.error()) return "an object {attach_ns, bpf, recorder_cpu_ns, ...} of the right types";
    out = std::move(c);
    return nullptr;
}

json devices_to_json(const std::map<uint32_t, std::string>& devices) {
    json out = json::array();
    for (const auto& [dev, name] : devices)
        out.push_back({{"major", dev_major(dev)}, {"minor", dev_minor(dev)}, {"name", text_json(name)}});
    return out;
}

}  // namespace

json capture_to_json(const CaptureInfo& c) {
    json probes = json::array();
    for (const auto& p : c.probes)
        probes.push_back(
            {{"name", p.name}, {"hook", p.hook}, {"attached", p.attached}, {"reason", text_json(p.reason)}});
    json out = {
        {"command", texts_json(c.command)},
        {"pids", c.pids},
        {"start_unix_ns", c.start_unix_ns},
        {"start_mono_ns", c.start_mono_ns},
        {"anchor_start_realtime_ns", c.anchor_start_realtime_ns},
        {"anchor_start_monotonic_ns", c.anchor_start_monotonic_ns},
        {"anchor_end_realtime_ns", c.anchor_end_realtime_ns},
        {"anchor_end_monotonic_ns", c.anchor_end_monotonic_ns},
        {"anchor_uncertainty_ns", c.anchor_uncertainty_ns},
        {"job_id", text_json(c.job_id)},
        {"job_id_source", text_json(c.job_id_source)},
        {"cgroup_path", text_json(c.cgroup_path)},
        {"cgroup_id", c.cgroup_id},
        {"duration_ns", c.duration_ns},
        {"events", c.events},
        {"lost_events", c.lost_events},
        {"lost_detail", c.lost_detail},
        {"probes", std::move(probes)},
        {"hostname", text_json(c.hostname)},
        {"kernel_release", text_json(c.kernel_release)},
        {"iolens_version", text_json(c.iolens_version)},
        {"exit_status", c.exit_status ? json(*c.exit_status) : json(nullptr)},
        {"partial", c.partial},
        {"partial_reason", text_json(c.partial_reason)},
        {"stop_reason", text_json(c.stop_reason)},
        {"kernel_counters", c.kernel_counters},
        {"devices", devices_to_json(c.devices)},
        {"cost", cost_to_json(c.cost)},
    };
    if (!c.stacks.empty()) out["stacks"] = text_json(c.stacks);  // only with --stacks
    return out;
}

Result<void> update_capture_from_json(const json& j, CaptureInfo& c) {
    CaptureInfo out = c;  // all or nothing: a bad key leaves c untouched
    Fields f(j, "capture");
    f.get("command", out.command)
        .get("pids", out.pids)
        .get("start_unix_ns", out.start_unix_ns)
        .get("start_mono_ns", out.start_mono_ns)
        .get("anchor_start_realtime_ns", out.anchor_start_realtime_ns)
        .get("anchor_start_monotonic_ns", out.anchor_start_monotonic_ns)
        .get("anchor_end_realtime_ns", out.anchor_end_realtime_ns)
        .get("anchor_end_monotonic_ns", out.anchor_end_monotonic_ns)
        .get("anchor_uncertainty_ns", out.anchor_uncertainty_ns)
        .get("job_id", out.job_id)
        .get("job_id_source", out.job_id_source)
        .get("cgroup_path", out.cgroup_path)
        .get("cgroup_id", out.cgroup_id)
        .get("stacks", out.stacks)
        .get("duration_ns", out.duration_ns)
        .get("events", out.events)
        .get("lost_events", out.lost_events)
        .get("lost_detail", out.lost_detail)
        .get("probes", out.probes)
        .get("hostname", out.hostname)
        .get("kernel_release", out.kernel_release)
        .get("iolens_version", out.iolens_version)
        .get("exit_status", out.exit_status)
        .get("partial", out.partial)
        .get("partial_reason", out.partial_reason)
        .get("stop_reason", out.stop_reason)
        .get("kernel_counters", out.kernel_counters)
        .get("devices", out.devices)
        .get("cost", out.cost);
    if (f.error()) return *f.error();
    c = std::move(out);
    return {};
}

Result<CaptureInfo> capture_from_json(const json& j) {
    CaptureInfo c;
    if (auto r = update_capture_from_json(j, c); !r) return r.error();
    return c;
}

json process_to_json(const ProcessInfo& p) {
    return {
        {"pid", p.pid},
        {"ppid", p.ppid},
        {"comm", text_json(p.comm)},
        {"cmdline", texts_json(p.cmdline)},
        {"start_ns", p.start_ns},
        {"end_ns", p.end_ns},
        {"exit_code", p.exit_code ? json(*p.exit_code) : json(nullptr)},
    };
}

Result<ProcessInfo> process_from_json(const json& j) {
    ProcessInfo p;
    Fields f(j, "process");
    f.get("pid", p.pid)
        .get("ppid", p.ppid)
        .get("comm", p.comm)
        .get("cmdline", p.cmdline)
        .get("start_ns", p.start_ns)
        .get("end_ns", p.end_ns)
        .get("exit_code", p.exit_code);
    if (f.error()) return *f.error();
    return p;
}

}  // namespace iolens::recording
