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

// Copy of the current environment with `exports` set ("NAME=value" strings).
std::vector<std::string> environment_with(
    const std::vector<std::pair<std::string, std::string>>& exports);

}  // namespace gpurun::launcher
