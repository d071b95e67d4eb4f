#include "report/json_renderer.h"

#include "model/capture_json.h"

namespace iolens::report {

using nlohmann::json;

namespace {

json hist_to_json(const model::Histogram& h) {
    json buckets = json::array();
    for (const auto& b : h.buckets())
        buckets.push_back({{"lo", b.lo}, {"hi", b.hi}, {"count", b.count}});
    return {
        {"buckets", std::move(buckets)},
        {"count", h.count()},
        {"sum", h.sum()},
        {"min", h.min()},
        {"p50", h.percentile(0.50)},
        {"p99", h.percentile(0.99)},
        {"max", h.max()},
    };
}

json op_stats_to_json(const model::OpStats& s) {
    return {
        {"calls", s.calls},
        {"errors", s.errors},
        {"bytes", s.bytes},
        {"requested_bytes", s.requested_bytes},
        {"time_ns", s.time_ns},
        {"latency_ns", hist_to_json(s.latency_ns)},
        {"size_bytes", hist_to_json(s.size_bytes)},
    };
}

// Every class is present, calls 0 included, so consumers need no existence checks.
json op_table_to_json(const model::OpTable& ops) {
    json out = json::object();
    for (int op = 0; op < model::kOpCount; ++op) out[model::op_name(op)] = op_stats_to_json(ops[op]);
    return out;
}

}  // namespace

json report_to_json(const model::Report& r) {
    json processes = json::array();
    for (const auto& p : r.processes) {
        json j = model::process_to_json(p.info);
        j["ops"] = op_table_to_json(p.ops);
        processes.push_back(std::move(j));
    }
    json files = json::array();
    for (const auto& f : r.files) {
        files.push_back({
            {"path", f.path},
            {"dev", f.dev},
            {"dev_major", model::dev_major(f.dev)},
            {"dev_minor", model::dev_minor(f.dev)},
            {"ino", f.ino},
            {"size", f.size},
            {"ops", op_table_to_json(f.ops)},
            {"sequential", f.sequential},
            {"random", f.random},
        });
    }
    return {
        {"schema", kReportSchema},
        {"version", kReportVersion},
        {"capture", model::capture_to_json(r.capture)},
        {"totals", op_table_to_json(r.totals)},
        {"processes", std::move(processes)},
        {"files", std::move(files)},
        {"files_total", r.files_total},
        {"files_omitted", r.files_omitted},
    };
}

std::string report_to_json_text(const model::Report& r) {
    return report_to_json(r).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

}  // namespace iolens::report
