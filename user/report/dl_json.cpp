// The JSON of ranks, epochs and rank imbalance (docs/report-schema.md).
#include <algorithm>

#include "report/json_sections.h"

namespace iolens::report::detail {

using nlohmann::json;

namespace {

template <typename T>
json opt(const std::optional<T>& v) {
    return v ? json(*v) : json(nullptr);
}

json spread_to_json(const model::Spread& s) {
    return {{"min", s.min}, {"max", s.max}, {"mean", s.mean}, {"max_over_mean", opt(s.max_over_mean)}};
}

}  // namespace

json ranks_to_json(const model::Report& r, const Live& live) {
    json out = json::array();
    for (const auto& rk : r.ranks) {
        json threads = json::array();
        const size_t n = std::min(rk.threads.size(), kMaxThreadsPerRank);
        for (size_t i = 0; i < n; ++i)
            threads.push_back(
                {{"pid", rk.threads[i].pid}, {"tid", rk.threads[i].tid}, {"io_ns", rk.threads[i].io_ns}});
        out.push_back({
            {"rank", rk.rank},
            {"local_rank", opt(rk.local_rank)},
            {"world_size", opt(rk.world_size)},
            {"rank_source", rk.rank_source},
            {"pids", rk.pids},
            {"root_pids", rk.root_pids},
            {"ops", op_table_to_json(rk.ops, live)},
            {"page_cache", page_cache_to_json(rk.page_cache, live)},
            {"block", process_block_to_json(rk.block, live)},
            {"wall_ns", rk.wall_ns},
            {"io_time_ns", rk.io_time_ns},
            {"critical_io_ns", rk.critical_io_ns},
            {"io_time_share", opt(rk.io_time_share())},
            {"critical_io_share", opt(rk.critical_io_share())},
            {"startup_ns", rk.startup_ns},
            {"startup_critical_io_ns", rk.startup_critical_io_ns},
            {"data_reads", rk.data_reads},
            {"threads", std::move(threads)},
            {"threads_total", rk.threads.size()},
        });
        if (!rk.node.empty()) out.back()["node"] = rk.node;  // a report of many nodes' recordings
    }
    return out;
}

json epochs_to_json(const model::Report& r, const Live& live) {
    json out = json::array();
    for (const auto& e : r.epochs) {
        json ranks = json::array();
        for (const auto& er : e.ranks)
            ranks.push_back({
                {"rank", er.rank},
                {"ops", op_table_to_json(er.ops, live)},
                {"page_cache", page_cache_to_json(er.page_cache, live)},
                {"block", process_block_to_json(er.block, live)},
                {"wall_ns", er.wall_ns},
                {"io_time_ns", er.io_time_ns},
                {"critical_io_ns", er.critical_io_ns},
                {"io_time_share", opt(er.io_time_share())},
                {"critical_io_share", opt(er.critical_io_share())},
            });
        out.push_back({
            {"index", e.index},
            {"source", model::epoch_source_name(e.source)},
            {"marker_number", opt(e.marker_number)},
            {"start_ns", e.start_ns},
            {"end_ns", e.end_ns},
            {"duration_ns", e.duration_ns()},
            {"steps", e.steps},
            {"io_time_share", opt(e.io_time_share())},
            {"critical_io_share", opt(e.critical_io_share())},
            {"ops", op_table_to_json(e.ops, live)},
            {"page_cache", page_cache_to_json(e.page_cache, live)},
            {"block", process_block_to_json(e.block, live)},
            {"ranks", std::move(ranks)},
        });
    }
    return out;
}

json rank_imbalance_to_json(const model::Report& r) {
    if (!r.rank_imbalance) return nullptr;
    const auto& im = *r.rank_imbalance;
    return {
        {"ranks", r.ranks.size()},
        {"read_bytes", spread_to_json(im.read_bytes)},
        {"io_time_ns", spread_to_json(im.io_time_ns)},
        {"straggler_rank", im.straggler_rank},
        {"straggler_io_time_ns", im.straggler_io_time_ns},
    };
}

}  // namespace iolens::report::detail
