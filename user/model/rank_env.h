#pragma once
// Which distributed-training rank a process is, from its environment. The
// capture side reads exactly rank_env_variables() from /proc/<pid>/environ
// (never the rest: the environment may hold secrets) and records them in an
// ENV chunk; the model turns them into a rank with parse_rank_env().
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace iolens::model {

// The variables naming the global rank, in precedence order: the first one
// present with an integer value wins.
//   RANK (torchrun / torch.distributed), OMPI_COMM_WORLD_RANK (Open MPI),
//   PMI_RANK (MPICH, Intel MPI), PMIX_RANK (PMIx), PALS_RANKID (HPE PALS),
//   ALPS_APP_PE (Cray ALPS), MV2_COMM_WORLD_RANK (MVAPICH2), SLURM_PROCID (srun).
const std::vector<std::string>& rank_variables();
// Local rank (within the node) and world size, each in precedence order:
//   LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID;
//   WORLD_SIZE, OMPI_COMM_WORLD_SIZE, PMI_SIZE, SLURM_NTASKS.
const std::vector<std::string>& local_rank_variables();
const std::vector<std::string>& world_size_variables();
// Every variable the capture side should read: the three lists together.
const std::vector<std::string>& rank_env_variables();

struct RankEnv {
    std::optional<int64_t> rank;
    std::string source;  // the variable the rank came from
    std::optional<int64_t> local_rank;
    std::optional<int64_t> world_size;
};

// The rank a process's variables give. override_var (--rank-env VAR), when not
// empty, is the only variable consulted for the rank. Values that are not
// plain decimal integers (optionally negative, surrounding blanks allowed) are
// ignored, as if the variable were absent.
RankEnv parse_rank_env(const std::map<std::string, std::string>& vars, const std::string& override_var = "");

// "12" -> 12; "", "3a", "1.5", overflow -> empty.
std::optional<int64_t> parse_env_int(const std::string& text);

}  // namespace iolens::model
