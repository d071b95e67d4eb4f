#include "model/rank_env.h"

#include <charconv>

namespace iolens::model {

const std::vector<std::string>& rank_variables() {
    static const std::vector<std::string> v = {
        "RANK",        "OMPI_COMM_WORLD_RANK", "PMI_RANK",     "PMIX_RANK", "PALS_RANKID",
        "ALPS_APP_PE", "MV2_COMM_WORLD_RANK",  "SLURM_PROCID",
    };
    return v;
}

const std::vector<std::string>& local_rank_variables() {
    static const std::vector<std::string> v = {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
                                               "SLURM_LOCALID"};
    return v;
}

const std::vector<std::string>& world_size_variables() {
    static const std::vector<std::string> v = {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                               "SLURM_NTASKS"};
    return v;
}

const std::vector<std::string>& rank_env_variables() {
    static const std::vector<std::string> all = [] {
        std::vector<std::string> v = rank_variables();
        v.insert(v.end(), local_rank_variables().begin(), local_rank_variables().end());
        v.insert(v.end(), world_size_variables().begin(), world_size_variables().end());
        return v;
    }();
    return all;
}

std::optional<int64_t> parse_env_int(const std::string& text) {
    size_t b = text.find_first_not_of(" \t");
    size_t e = text.find_last_not_of(" \t");
    if (b == std::string::npos) return std::nullopt;
    const char* first = text.data() + b;
    const char* last = text.data() + e + 1;
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(first, last, v);
    if (ec != std::errc{} || ptr != last) return std::nullopt;
    return v;
}

namespace {

std::optional<int64_t> first_int(const std::map<std::string, std::string>& vars,
                                 const std::vector<std::string>& names, std::string* source) {
    for (const auto& name : names) {
        auto it = vars.find(name);
        if (it == vars.end()) continue;
        if (auto v = parse_env_int(it->second)) {
            if (source) *source = name;
            return v;
        }
    }
    return std::nullopt;
}

}  // namespace

RankEnv parse_rank_env(const std::map<std::string, std::string>& vars, const std::string& override_var) {
    RankEnv out;
    if (override_var.empty())
        out.rank = first_int(vars, rank_variables(), &out.source);
    else
        out.rank = first_int(vars, {override_var}, &out.source);
    out.local_rank = first_int(vars, local_rank_variables(), nullptr);
    out.world_size = first_int(vars, world_size_variables(), nullptr);
    return out;
}

}  // namespace iolens::model
