// The hosts of the Slurm allocation gpurun runs in: inside salloc or sbatch (not within an srun
// step), a gpurun without -H or --hostfile runs its ranks on the allocation's nodes, as many a
// node as Slurm gave it tasks there, and starts its daemons with srun, as the peers' launchers
// do; in an allocation of its own host alone, -np defaults to the tasks there.
// GPURUN_LAUNCHER_SLURM=false ignores the allocation.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "launcher/cli.h"
#include "launcher/hosts.h"

namespace gpurun::launcher {

// Slurm's compressed host list ("node[01-03,7],login"), expanded in order, zero-filling kept.
// Throws UsageError naming `variable` for a list it cannot read.
std::vector<std::string> expand_hostlist(std::string_view text, std::string_view variable);
// Slurm's per-node counts ("2(x3),1": 2, 2, 2, 1). Throws UsageError naming `variable`.
std::vector<int> expand_counts(std::string_view text, std::string_view variable);

// The allocation's nodes with their slots (SLURM_JOB_NODELIST, SLURM_TASKS_PER_NODE; the node
// SLURMD_NODENAME names is this host), read from the environment before gpurun scrubs it; empty
// outside an allocation, inside a job step or with GPURUN_LAUNCHER_SLURM=false.
std::vector<HostSpec> slurm_allocation();

// What the allocation gives a job without hosts of its own: its nodes (Options::allocation); or,
// for an allocation of this host alone (sbatch -n 4 on one node), a job of this host as any
// other, whose -np defaults to the node's tasks.
void take_allocation(Options& opts);

// The launch agent for the allocation's nodes: one srun step a node (GPURUN_LAUNCHER_SLURM_AGENT).
std::string slurm_agent();

}  // namespace gpurun::launcher
