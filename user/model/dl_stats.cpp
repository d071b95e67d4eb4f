// Small derived figures of the DL attribution structs (report.h).
#include "model/report.h"

namespace iolens::model {

namespace {
std::optional<double> share(uint64_t part, uint64_t whole) {
    if (whole == 0) return std::nullopt;
    return static_cast<double>(part) / static_cast<double>(whole);
}
}  // namespace

std::optional<double> RankStats::io_time_share() const { return share(io_time_ns, wall_ns); }
std::optional<double> RankStats::critical_io_share() const { return share(critical_io_ns, wall_ns); }
std::optional<double> EpochRankStats::io_time_share() const { return share(io_time_ns, wall_ns); }
std::optional<double> EpochRankStats::critical_io_share() const { return share(critical_io_ns, wall_ns); }

std::optional<double> EpochStats::io_time_share() const { return share(rank_io_time_ns(), rank_wall_ns()); }
std::optional<double> EpochStats::critical_io_share() const {
    return share(rank_critical_io_ns(), rank_wall_ns());
}

}  // namespace iolens::model
