#include "model/ranks.h"

#include <algorithm>
#include <set>

#include "model/rank_env.h"

namespace iolens::model {

namespace {

constexpr int kMaxAncestry = 256;  // ppid chain walk bound (guards against loops)

}  // namespace

RankMap assign_ranks(const std::vector<ProcessInfo>& processes, const EnvByPid& env,
                     const std::string& override_var,
                     const std::unordered_map<uint32_t, uint64_t>& calls_of) {
    std::unordered_map<uint32_t, uint32_t> parent;
    std::set<uint32_t> pids;
    std::unordered_map<uint32_t, std::string> comm_of;
    for (const auto& p : processes) {
        pids.insert(p.pid);
        comm_of.try_emplace(p.pid, p.comm);
        if (p.ppid != 0 && p.ppid != p.pid) parent.try_emplace(p.pid, p.ppid);
    }
    std::unordered_map<uint32_t, RankEnv> own;
    for (const auto& [pid, vars] : env) {
        RankEnv re = parse_rank_env(vars, override_var);
        if (re.rank) own.emplace(pid, re);
        pids.insert(pid);  // an ENV chunk makes the process known
    }

    RankMap out;
    std::map<int64_t, RankGroup> groups;
    std::unordered_map<uint32_t, int64_t> rank_value;
    if (own.empty()) {
        RankGroup& g = groups[0];
        g.source = "default";
        for (uint32_t pid : pids) rank_value[pid] = 0;
    } else {
        for (uint32_t pid : pids) {
            uint32_t cur = pid;
            for (int depth = 0; depth < kMaxAncestry; ++depth) {
                if (auto it = own.find(cur); it != own.end()) {
                    const RankEnv& re = it->second;
                    rank_value[pid] = *re.rank;
                    RankGroup& g = groups[*re.rank];
                    g.rank = *re.rank;
                    if (g.source.empty()) g.source = re.source;
                    break;
                }
                auto pit = parent.find(cur);
                if (pit == parent.end()) break;
                cur = pit->second;
            }
        }
    }

    // Members, then roots (parent outside the rank), each handed over to its
    // only child while that child did more calls.
    std::unordered_map<uint32_t, std::vector<uint32_t>> children;
    for (const auto& [child, par] : parent) children[par].push_back(child);
    const auto calls = [&](uint32_t pid) {
        auto it = calls_of.find(pid);
        return it == calls_of.end() ? uint64_t{0} : it->second;
    };
    for (const auto& [pid, rank] : rank_value) groups[rank].pids.push_back(pid);
    for (auto& [rank, g] : groups) {
        g.rank = rank;
        std::sort(g.pids.begin(), g.pids.end());
        std::set<uint32_t> roots;
        for (uint32_t pid : g.pids) {
            auto pit = parent.find(pid);
            const bool parent_in_rank =
                pit != parent.end() && rank_value.count(pit->second) && rank_value[pit->second] == rank;
            if (parent_in_rank) continue;
            uint32_t root = pid;
            for (int depth = 0; depth < kMaxAncestry; ++depth) {
                auto cit = children.find(root);
                if (cit == children.end() || cit->second.size() != 1) break;
                const uint32_t only = cit->second.front();
                if (calls(only) <= calls(root) || comm_of[only] == comm_of[root]) break;
                root = only;
            }
            roots.insert(root);
        }
        g.roots.assign(roots.begin(), roots.end());
        // local rank and world size from the roots' own variables, else any member's.
        std::vector<uint32_t> order = g.roots;
        order.insert(order.end(), g.pids.begin(), g.pids.end());
        for (uint32_t pid : order) {
            auto eit = env.find(pid);
            if (eit == env.end()) continue;
            RankEnv re = parse_rank_env(eit->second, override_var);
            if (!g.local_rank) g.local_rank = re.local_rank;
            if (!g.world_size) g.world_size = re.world_size;
        }
    }
    for (auto& [rank, g] : groups) {
        if (g.pids.empty()) continue;
        for (uint32_t pid : g.pids) out.rank_of[pid] = out.ranks.size();
        out.ranks.push_back(std::move(g));
    }
    return out;
}

}  // namespace iolens::model
