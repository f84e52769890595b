// Where the ranks of a one-host job run.
//
// Without GPUs (or with --map-by core): one core each (or --cpus-per-rank N consecutive ones,
// for ranks that run threads: OMP_NUM_THREADS asks the same), round robin over the cores when
// there are more ranks than cores (then the ranks are told they are oversubscribed).
//
// With GPUs: each rank gets a GPU (or --gpus-per-rank N of them), taken in PCI bus id order;
// with more ranks than GPUs, consecutive ranks share one, the GPUs' shares differing by at most
// one rank. A rank is bound to the CPUs of its GPUs' NUMA node(s) (to one core of them with
// --bind-to core) and gets the NIC nearest its GPU (smallest path class, ties by PCI order).
// Ranks are told their GPU and NIC through PMIx; CUDA_VISIBLE_DEVICES is not set: hiding the
// other GPUs would break CUDA IPC between ranks.
//
// --map-by numa, socket or l3cache (and ppr:N:OBJECT) place by CPU domain; with GPUs, each rank
// also gets the GPU near its domain that has the fewest ranks so far, and that GPU's NIC.
//
// --bind-to numa, socket or l3cache widens the cores a rank would get to their domains;
// --bind-to hwthread narrows them to one hardware thread each.
#pragma once

#include <optional>
#include <vector>

#include "launcher/cli.h"
#include "runtime/topo/topology.h"

namespace gpurun::launcher {

struct RankPlace {
  std::optional<topo::CpuSet> cpus;  // its binding; nullopt: not bound
  std::vector<int> gpus;             // indices into Topology::gpus(), its own device first
  int nic = -1;                      // index into Topology::nics(); -1: none
};

struct Placement {
  int cores = 0;  // cores available to gpurun
  bool oversubscribed = false;
  bool by_gpu = false;  // placed by GPU (ranks placed by domain may have GPUs too: has_gpus)
  // False when the topology is not this machine's (GPURUN_TOPO_FILE): the bindings are
  // computed and shown, never applied.
  bool apply_binding = true;
  std::vector<RankPlace> ranks;
  bool has_gpus() const;  // some rank was given a GPU
  // The binding to apply to `rank`; nullopt when it is not bound or bindings are not applied.
  std::optional<topo::CpuSet> binding(int rank) const;
};

struct PlacementRequest {
  int np = 1;
  BindTo bind = BindTo::kAuto;
  MapBy map_by = MapBy::kAuto;
  int ranks_per_domain = 0;      // with a domain map_by: N to a domain in turn (ppr:N:OBJECT)
  int gpus_per_rank = 0;         // 0: not asked (one GPU per rank)
  // Where ranks are bound to cores, each takes this many consecutive ones (0 or 1: one). Asked
  // for (--cpus-per-rank), too many for the cores is a UsageError; from OMP_NUM_THREADS
  // (strict false), each rank gets what the cores allow, with a warning.
  int cpus_per_rank = 0;
  bool cpus_strict = true;
  std::vector<int> hidden_gpus;  // GPUs the ranks cannot see (CUDA_VISIBLE_DEVICES)
  bool hwthread_cpus = false;    // each hardware thread counts as a core (--use-hwthread-cpus)
};

// Pure placement of `np` ranks on `cores` (the cores gpurun may use), without GPUs, each rank
// on `per_rank` consecutive cores where they fit.
Placement place_on(const std::vector<topo::Core>& cores, int np, BindTo bind, int per_rank = 1);
// Pure placement on `topology` within `cores`, by GPU when the request and the topology say
// so. Throws UsageError when the request cannot be met (--map-by gpu or --gpus-per-rank
// without enough GPUs).
Placement place_on(const topo::Topology& topology, const std::vector<topo::Core>& cores,
                   const PlacementRequest& request);
// How many domains of the kind --map-by `map_by` names (NUMA nodes, packages, L3 caches) hold
// cores gpurun may use on `topology` (this machine: within gpurun's CPU affinity); at least 1.
int domains_for(const topo::Topology& topology, MapBy map_by);
// Each hardware thread of `cores` as a core of its own (--use-hwthread-cpus).
std::vector<topo::Core> threads_as_cores(const std::vector<topo::Core>& cores);
// Placement on `topology`: within gpurun's own CPU affinity on this machine, on all of the
// topology's cores otherwise. Throws UsageError as above, std::runtime_error when the
// affinity cannot be read.
Placement place_ranks(const topo::Topology& topology, const PlacementRequest& request);

}  // namespace gpurun::launcher
