#include "coll/params.h"

#include <array>

namespace gpurun::coll::params {
namespace {

constexpr int kCollectives = static_cast<int>(Collective::kCount);

// In the order of enum class Collective.
std::array<param::Param<std::string>, kCollectives> g_forced = {{
    {"GPURUN_COLL_BARRIER_ALGO", "auto",
     "Algorithm forced for MPI_Barrier (a name from `gpurun --info algos`); auto: the tuning "
     "table's choice.",
     param::Level::kAdvanced},
    {"GPURUN_COLL_BCAST_ALGO", "auto",
     "Algorithm forced for MPI_Bcast (a name from `gpurun --info algos`); auto: the tuning table's "
     "choice.",
     param::Level::kAdvanced},
    {"GPURUN_COLL_REDUCE_ALGO", "auto",
     "Algorithm forced for MPI_Reduce (a name from `gpurun --info algos`); auto: the tuning "
     "table's choice.",
     param::Level::kAdvanced},
    {"GPURUN_COLL_ALLREDUCE_ALGO", "auto",
     "Algorithm forced for MPI_Allreduce (a name from `gpurun --info algos`); auto: the tuning "
     "table's choice.",
     param::Level::kAdvanced},
    {"GPURUN_COLL_REDUCE_SCATTER_ALGO", "auto",
     "Algorithm forced for MPI_Reduce_scatter (a name from `gpurun --info algos`); auto: the "
     "tuning table's choice.",
     param::Level::kAdvanced},
    {"GPURUN_COLL_REDUCE_SCATTER_BLOCK_ALGO", "auto",
     "Algorithm forced for MPI_Reduce_scatter_block (a name from `gpurun --info algos`); auto: the "
     "tuning table's choice.",
     param::Level::kAdvanced},
    {"GPURUN_COLL_SCAN_ALGO", "auto",
     "Algorithm forced for MPI_Scan (a name from `gpurun --info algos`); auto: the tuning table's "
     "choice.",
     param::Level::kAdvanced},
    {"GPURUN_COLL_EXSCAN_ALGO", "auto",
     "Algorithm forced for MPI_Exscan (a name from `gpurun --info algos`); auto: the tuning "
     "table's choice.",
     param::Level::kAdvanced},
    {"GPURUN_COLL_GATHER_ALGO", "auto",
     "Algorithm forced for MPI_Gather (a name from `gpurun --info algos`); auto: the tuning "
     "table's choice.",
     param::Level::kAdvanced},
    {"GPURUN_COLL_GATHERV_ALGO", "auto",
     "Algorithm forced for MPI_Gatherv (a name from `gpurun --info algos`); auto: the tuning "
     "table's choice.",
     param::Level::kAdvanced},
    {"GPURUN_COLL_SCATTER_ALGO", "auto",
     "Algorithm forced for MPI_Scatter (a name from `gpurun --info algos`); auto: the tuning "
     "table's choice.",
     param::Level::kAdvanced},
    {"GPURUN_COLL_SCATTERV_ALGO", "auto",
     "Algorithm forced for MPI_Scatterv (a name from `gpurun --info algos`); auto: the tuning "
     "table's choice.",
     param::Level::kAdvanced},
    {"GPURUN_COLL_ALLGATHER_ALGO", "auto",
     "Algorithm forced for MPI_Allgather (a name from `gpurun --info algos`); auto: the tuning "
     "table's choice.",
     param::Level::kAdvanced},
    {"GPURUN_COLL_ALLGATHERV_ALGO", "auto",
     "Algorithm forced for MPI_Allgatherv (a name from `gpurun --info algos`); auto: the tuning "
     "table's choice.",
     param::Level::kAdvanced},
    {"GPURUN_COLL_ALLTOALL_ALGO", "auto",
     "Algorithm forced for MPI_Alltoall (a name from `gpurun --info algos`); auto: the tuning "
     "table's choice.",
     param::Level::kAdvanced},
    {"GPURUN_COLL_ALLTOALLV_ALGO", "auto",
     "Algorithm forced for MPI_Alltoallv (a name from `gpurun --info algos`); auto: the tuning "
     "table's choice.",
     param::Level::kAdvanced},
    {"GPURUN_COLL_ALLTOALLW_ALGO", "auto",
     "Algorithm forced for MPI_Alltoallw (a name from `gpurun --info algos`); auto: the tuning "
     "table's choice.",
     param::Level::kAdvanced},
    {"GPURUN_COLL_NEIGHBOR_ALLGATHER_ALGO", "auto",
     "Algorithm forced for MPI_Neighbor_allgather (a name from `gpurun --info algos`); auto: the "
     "tuning table's choice.",
     param::Level::kAdvanced},
    {"GPURUN_COLL_NEIGHBOR_ALLGATHERV_ALGO", "auto",
     "Algorithm forced for MPI_Neighbor_allgatherv (a name from `gpurun --info algos`); auto: the "
     "tuning table's choice.",
     param::Level::kAdvanced},
    {"GPURUN_COLL_NEIGHBOR_ALLTOALL_ALGO", "auto",
     "Algorithm forced for MPI_Neighbor_alltoall (a name from `gpurun --info algos`); auto: the "
     "tuning table's choice.",
     param::Level::kAdvanced},
    {"GPURUN_COLL_NEIGHBOR_ALLTOALLV_ALGO", "auto",
     "Algorithm forced for MPI_Neighbor_alltoallv (a name from `gpurun --info algos`); auto: the "
     "tuning table's choice.",
     param::Level::kAdvanced},
    {"GPURUN_COLL_NEIGHBOR_ALLTOALLW_ALGO", "auto",
     "Algorithm forced for MPI_Neighbor_alltoallw (a name from `gpurun --info algos`); auto: the "
     "tuning table's choice.",
     param::Level::kAdvanced},
}};

param::Param<std::string> g_tuning_file(
    "GPURUN_COLL_TUNING_FILE", "",
    "JSON table that chooses the collective algorithms, replacing the built-in one (see "
    "coll/tuning.json, installed as share/gpurun/tuning.json, for the format).");

// A collective on one host completes in microseconds to a few milliseconds (4 MiB at 2 GB/s
// under load); 100 ms without progress means an unbalanced program (whose wait dwarfs the
// p - 1 notices) or a stuck one.
param::Param<param::Duration> g_mismatch_wait(
    "GPURUN_COLL_MISMATCH_WAIT", param::Duration(100'000'000),
    "How long a collective call (or the creation of a communicator) stays incomplete before "
    "its rank exchanges notices of the call with the other ranks, so that counts, roots or "
    "collectives that differ between ranks end in an error instead of a hang; shorter finds "
    "such errors sooner, at the cost of notices in slow but correct calls.",
    param::Level::kAdvanced);

}  // namespace

const param::Param<std::string>& forced_algorithm(Collective collective) {
  return g_forced[static_cast<std::size_t>(collective)];
}

const param::Param<std::string>& tuning_file() { return g_tuning_file; }

const param::Param<param::Duration>& mismatch_wait() { return g_mismatch_wait; }

}  // namespace gpurun::coll::params
