#include "runtime/topo/topology.h"

#include <hwloc.h>

#include <string>

#include "runtime/base/log.h"

namespace gpurun::topo {
namespace {

Status hwloc_error(std::string_view what) {
  return errno_status("hwloc " + std::string(what), errno);
}

CpuSet cpuset_of(hwloc_const_bitmap_t bitmap) {
  std::vector<int> cpus;
  for (int cpu = hwloc_bitmap_first(bitmap); cpu != -1; cpu = hwloc_bitmap_next(bitmap, cpu))
    cpus.push_back(cpu);
  return CpuSet(std::move(cpus));
}

// The logical index of the package above `obj`, or 0 when the topology has none.
int package_of(hwloc_topology_t topology, hwloc_obj_t obj) {
  hwloc_obj_t package = hwloc_get_ancestor_obj_by_type(topology, HWLOC_OBJ_PACKAGE, obj);
  return package != nullptr ? static_cast<int>(package->logical_index) : 0;
}

}  // namespace

void Topology::HwlocDeleter::operator()(hwloc_topology* topology) const {
  hwloc_topology_destroy(topology);
}

Result<Topology> Topology::load_host() {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) return hwloc_error("topology init");
  std::unique_ptr<hwloc_topology, HwlocDeleter> handle(raw);
  // Binding needs packages, cores and PUs only: skip I/O discovery (PCI scans are the slow
  // part) and the instruction caches. Data caches stay, cheap and useful to later placement.
  hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_NONE);
  hwloc_topology_set_icache_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_NONE);
  if (hwloc_topology_load(raw) != 0) return hwloc_error("topology load");
  return from_hwloc(std::move(handle));
}

Result<Topology> Topology::load_synthetic(std::string_view description) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) return hwloc_error("topology init");
  std::unique_ptr<hwloc_topology, HwlocDeleter> handle(raw);
  std::string text(description);
  if (hwloc_topology_set_synthetic(raw, text.c_str()) != 0)
    return Status(ErrorCode::kInvalidArgument,
                  "'" + text + "' is not an hwloc synthetic topology (e.g. pack:2 core:4 pu:2)");
  if (hwloc_topology_load(raw) != 0) return hwloc_error("synthetic topology load");
  return from_hwloc(std::move(handle));
}

Result<Topology> Topology::from_hwloc(std::unique_ptr<hwloc_topology, HwlocDeleter> handle) {
  hwloc_topology_t raw = handle.get();
  Topology topo;
  topo.num_packages_ = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_PACKAGE);
  topo.is_this_system_ = hwloc_topology_is_thissystem(raw) != 0;
  topo.all_pus_ = cpuset_of(hwloc_topology_get_topology_cpuset(raw));
  int ncores = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_CORE);
  for (int i = 0; i < ncores; ++i) {
    hwloc_obj_t core = hwloc_get_obj_by_type(raw, HWLOC_OBJ_CORE, static_cast<unsigned>(i));
    topo.cores_.push_back(
        Core{.index = i, .package = package_of(raw, core), .pus = cpuset_of(core->cpuset)});
  }
  if (topo.cores_.empty()) {
    // Some virtual machines expose PUs without cores: treat each PU as a core.
    int npus = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_PU);
    for (int i = 0; i < npus; ++i) {
      hwloc_obj_t pu = hwloc_get_obj_by_type(raw, HWLOC_OBJ_PU, static_cast<unsigned>(i));
      topo.cores_.push_back(
          Core{.index = i, .package = package_of(raw, pu), .pus = cpuset_of(pu->cpuset)});
    }
  }
  GPURUN_LOG(debug, topo, "topology packages %d cores %d pus %d", topo.num_packages_,
             topo.num_cores(), topo.num_pus());
  topo.handle_ = std::shared_ptr<hwloc_topology>(handle.release(), HwlocDeleter{});
  return topo;
}

std::vector<Core> Topology::cores_within(const CpuSet& allowed) const {
  std::vector<Core> out;
  for (const Core& core : cores_) {
    CpuSet pus = core.pus.intersect(allowed);
    if (pus.empty()) continue;
    out.push_back(Core{.index = core.index, .package = core.package, .pus = std::move(pus)});
  }
  return out;
}

}  // namespace gpurun::topo
