// gpurun's environment and the ranks'.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace gpurun::launcher {

// Removes from gpurun's own environment the variables that another launcher (srun, mpirun,
// mpiexec) set for *its* processes: PMIx/PMI rendezvous, Slurm step and Open MPI job
// variables. Left in place they would make gpurun's PMIx server, or the ranks, talk to the
// outer launcher. Returns the names removed. Call before any thread starts.
std::vector<std::string> scrub_inherited_environment();

// True when a variable of that name belongs to an outer launcher's job (exposed for tests).
bool is_inherited_launcher_variable(const std::string& name);

// Sets the PMIx MCA variables that make the server and its clients lean (read by libpmix in
// both, since the ranks inherit them).
void set_pmix_environment();

// The directory of gpurun's library: <directory of gpurun>/../lib, in the build tree and
// installed alike, which holds libmpi.so.12 and libmpich.so.12; "" when gpurun cannot find its
// own path.
std::string library_dir();
// Appends library_dir() to LD_LIBRARY_PATH, so that ranks whose program was built against MPICH
// load gpurun's library rather than MPICH's: after the user's own directories, before the
// system's. Nothing when that directory has no libmpi.so.12 or is listed already.
void add_library_path();
// The same for a given LD_LIBRARY_PATH value and directory (exposed for tests): the new value.
std::string library_path_with(const std::string& current, const std::string& dir);

// Copy of the current environment with `exports` set ("NAME=value" strings).
std::vector<std::string> environment_with(
    const std::vector<std::pair<std::string, std::string>>& exports);

// Where a rank is in its job and on its host.
struct RankPosition {
  int rank = 0;
  int size = 1;
  int local_rank = 0;
  int local_size = 1;
};
// Sets, in a rank's environment `env`, where the rank is as the peers' launchers say it, for the
// scripts and libraries that read it rather than ask MPI (a wrapper that picks a GPU by its local
// rank; Horovod, DeepSpeed): Open MPI's OMPI_COMM_WORLD_{RANK,SIZE,LOCAL_RANK,LOCAL_SIZE,
// NODE_RANK}, MVAPICH's MV2_COMM_WORLD_{RANK,SIZE,LOCAL_RANK,LOCAL_SIZE}, MPICH's
// MPI_LOCALRANKID and MPI_LOCALNRANKS. Not PMI_RANK and PMI_SIZE, which name a PMI-1 server.
void add_rank_variables(std::vector<std::string>& env, const RankPosition& where);

}  // namespace gpurun::launcher
