#include "model/attribution.h"

namespace iolens::model {

EventAttribution::EventAttribution(const Report& report) {
    for (size_t i = 0; i < report.ranks.size(); ++i)
        for (uint32_t pid : report.ranks[i].pids) rank_of_[pid] = static_cast<long>(i);
    for (const auto& ep : report.epochs)
        windows_.push_back({ep.start_ns, ep.end_ns, ep.marker_number, ep.steps});
    const bool per_rank = !report.epochs.empty() &&
                          std::all_of(report.epochs.begin(), report.epochs.end(), [&](const EpochStats& ep) {
                              return ep.ranks.size() == report.ranks.size();
                          });
    if (!per_rank || report.ranks.size() < 2) return;
    rank_windows_.assign(report.ranks.size(), windows_);
    for (size_t k = 0; k < report.epochs.size(); ++k)
        for (size_t i = 0; i < report.ranks.size(); ++i) {
            rank_windows_[i][k].start_ns = report.epochs[k].ranks[i].start_ns;
            rank_windows_[i][k].end_ns = report.epochs[k].ranks[i].end_ns;
        }
}

}  // namespace iolens::model
