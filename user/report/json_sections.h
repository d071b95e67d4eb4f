#pragma once
// Internal to the JSON view: the pieces its section files share
// (json_renderer.cpp, dl_json.cpp).
#include <nlohmann/json.hpp>

#include "model/report.h"

namespace iolens::report::detail {

// Which optional probe families were live: their figures are null otherwise,
// so a missing probe never reads as "zero".
struct Live {
    bool page_cache, blocking, block;
    explicit Live(const recording::CaptureInfo& c);
};

nlohmann::json hist_to_json(const model::Histogram& h);
nlohmann::json or_null(bool live, uint64_t v);
nlohmann::json op_stats_to_json(const model::OpStats& s, const Live& live);
nlohmann::json op_table_to_json(const model::OpTable& ops, const Live& live);
nlohmann::json path_table_to_json(const model::PathTable& t);
// How many AIO and io_uring requests were in flight ("async").
nlohmann::json async_to_json(const model::AsyncDepthStats& s);
nlohmann::json page_cache_to_json(const model::PageCacheStats& s, const Live& live);
nlohmann::json process_block_to_json(const model::ProcessBlock& b, const Live& live);

// DL attribution (dl_json.cpp): "ranks", "epochs", "rank_imbalance".
inline constexpr size_t kMaxThreadsPerRank = 16;  // "threads" rows per rank
nlohmann::json ranks_to_json(const model::Report& r, const Live& live);
nlohmann::json epochs_to_json(const model::Report& r, const Live& live);
nlohmann::json rank_imbalance_to_json(const model::Report& r);

}  // namespace iolens::report::detail
