// Where the ranks of a one-host job run: one core each while they fit, no binding when there
// are more ranks than cores (then the ranks are told they are oversubscribed).
#pragma once

#include <optional>
#include <vector>

#include "launcher/cli.h"
#include "runtime/topo/topology.h"

namespace gpurun::launcher {

struct Placement {
  int cores = 0;  // cores available to gpurun
  bool oversubscribed = false;
  std::vector<topo::CpuSet> bindings;  // per rank; empty when the ranks are not bound
  std::optional<topo::CpuSet> binding(int rank) const;
};

// Pure placement of `np` ranks on `cores` (the cores gpurun may use).
Placement place_on(const std::vector<topo::Core>& cores, int np, BindTo bind);
// Placement on this host's `topology`, within gpurun's own CPU affinity. Throws when the
// affinity cannot be read.
Placement place_ranks(const topo::Topology& topology, int np, BindTo bind);

}  // namespace gpurun::launcher
