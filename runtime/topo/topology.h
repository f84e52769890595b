// The topology model: what the machine is made of, from hwloc. One model serves the launcher
// (placement, binding) and, later, the runtime (path choice between GPUs and NICs).
//
// This first version holds what binding and placement need: packages, cores and their PUs.
// It keeps the hwloc topology it was built from, so later additions (NUMA nodes, PCI devices
// matched by bus id, path classes, topologies loaded from a file) extend this class rather
// than replace it. A Topology is immutable once loaded; its const methods are thread-safe.
#pragma once

#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/topo/cpu_set.h"

struct hwloc_topology;

namespace gpurun::topo {

struct Core {
  int index = 0;    // logical index among all cores, in topology order
  int package = 0;  // logical index of the package holding it
  CpuSet pus;       // OS indices of its PUs
};

class Topology {
 public:
  // This machine, without I/O devices (loading them costs milliseconds and binding needs none).
  static Result<Topology> load_host();
  // An hwloc synthetic description, e.g. "pack:2 core:4 pu:2", for tests on any machine.
  static Result<Topology> load_synthetic(std::string_view description);

  int num_packages() const { return num_packages_; }
  int num_cores() const { return static_cast<int>(cores_.size()); }
  int num_pus() const { return static_cast<int>(all_pus_.size()); }
  std::span<const Core> cores() const { return cores_; }
  const CpuSet& all_pus() const { return all_pus_; }
  // False for synthetic (and later, file) topologies: their CPUs are not this machine's, so
  // binding to them is meaningless.
  bool is_this_system() const { return is_this_system_; }

  // The cores that have at least one PU in `allowed`, each restricted to its allowed PUs: what
  // a process whose affinity is `allowed` can place ranks on.
  std::vector<Core> cores_within(const CpuSet& allowed) const;

  // The hwloc topology this model was built from, for libraries that accept one instead of
  // discovering their own (PMIx's PMIX_TOPOLOGY2). Owned by this Topology (and its copies).
  hwloc_topology* hwloc_handle() const { return handle_.get(); }

 private:
  struct HwlocDeleter {
    void operator()(hwloc_topology* topology) const;
  };
  static Result<Topology> from_hwloc(std::unique_ptr<hwloc_topology, HwlocDeleter> handle);

  std::shared_ptr<hwloc_topology> handle_;
  std::vector<Core> cores_;
  CpuSet all_pus_;
  int num_packages_ = 0;
  bool is_this_system_ = false;
};

}  // namespace gpurun::topo
