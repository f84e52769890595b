#include "launcher/placement.h"

#include <cstdio>
#include <stdexcept>

#include "runtime/base/log.h"

namespace gpurun::launcher {

std::optional<topo::CpuSet> Placement::binding(int rank) const {
  if (bindings.empty()) return std::nullopt;
  return bindings[static_cast<std::size_t>(rank) % bindings.size()];
}

Placement place_on(const std::vector<topo::Core>& cores, int np, BindTo bind) {
  Placement placement;
  placement.cores = static_cast<int>(cores.size());
  placement.oversubscribed = np > placement.cores;
  bool bound = bind == BindTo::kCore || (bind == BindTo::kAuto && !placement.oversubscribed);
  if (bound && !cores.empty()) {
    // Ranks wrap around the cores when --bind-to core was asked for with too few of them.
    for (int rank = 0; rank < np; ++rank)
      placement.bindings.push_back(cores[static_cast<std::size_t>(rank) % cores.size()].pus);
  }
  return placement;
}

Placement place_ranks(const topo::Topology& topology, int np, BindTo bind) {
  auto allowed = topo::CpuSet::of_calling_thread();
  if (!allowed.ok()) throw std::runtime_error(allowed.status().to_string());
  Placement placement = place_on(topology.cores_within(*allowed), np, bind);
  if (placement.oversubscribed && bind == BindTo::kCore)
    std::fprintf(stderr, "gpurun: warning: %d ranks on %d cores: --bind-to core shares cores\n", np,
                 placement.cores);
  GPURUN_LOG(info, launcher, "ranks %d cores %d oversubscribed %d bound %d", np, placement.cores,
             placement.oversubscribed ? 1 : 0, placement.bindings.empty() ? 0 : 1);
  return placement;
}

}  // namespace gpurun::launcher
