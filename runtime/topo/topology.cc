#include "runtime/topo/topology.h"

#include <hwloc.h>

#include <array>
#include <string>

#include "runtime/base/log.h"
#include "runtime/topo/params.h"
#include "runtime/topo/pci_probe.h"

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
int package_index(hwloc_topology_t topology, hwloc_obj_t obj) {
  hwloc_obj_t package = hwloc_get_ancestor_obj_by_type(topology, HWLOC_OBJ_PACKAGE, obj);
  return package != nullptr ? static_cast<int>(package->logical_index) : 0;
}

// The logical index of the L3 cache above `obj`, or -1 when there is none.
int l3_index(hwloc_topology_t topology, hwloc_obj_t obj) {
  hwloc_obj_t cache = hwloc_get_ancestor_obj_by_type(topology, HWLOC_OBJ_L3CACHE, obj);
  return cache != nullptr ? static_cast<int>(cache->logical_index) : -1;
}

bool includes(const CpuSet& outer, const CpuSet& inner) {
  return !inner.empty() && outer.intersect(inner).size() == inner.size();
}

}  // namespace

void Topology::HwlocDeleter::operator()(hwloc_topology* topology) const {
  hwloc_topology_destroy(topology);
}

Result<Topology> Topology::load_host(Io io) {
  bool with_io = io == Io::kAlways || (io == Io::kAuto && has_nvidia_gpu(kPciDevicesDir));
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) return hwloc_error("topology init");
  Handle handle(raw);
  // Without GPUs, binding and placement need packages, cores and PUs only: skip I/O discovery
  // (PCI scans are the slow part) and the instruction caches.
  hwloc_topology_set_io_types_filter(
      raw, with_io ? HWLOC_TYPE_FILTER_KEEP_IMPORTANT : HWLOC_TYPE_FILTER_KEEP_NONE);
  hwloc_topology_set_icache_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_NONE);
  if (hwloc_topology_load(raw) != 0) return hwloc_error("topology load");
  GPURUN_ASSIGN_OR_RETURN(Topology topo, from_hwloc(std::move(handle), "this host"));
  if (topo.gpus_.empty()) {
    topo.link_source_ = "no GPU";
  } else if (Status status = topo.update_links_from_nvml(params::nvml_library().get());
             !status.ok()) {
    topo.link_source_ = "none: " + std::string(status.message());
    GPURUN_LOG(info, topo, "no NVLink or P2P data: %s", status.to_string().c_str());
  }
  return topo;
}

Result<Topology> Topology::load_synthetic(std::string_view description) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) return hwloc_error("topology init");
  Handle handle(raw);
  std::string text(description);
  if (hwloc_topology_set_synthetic(raw, text.c_str()) != 0)
    return Status(ErrorCode::kInvalidArgument,
                  "'" + text + "' is not an hwloc synthetic topology (e.g. pack:2 core:4 pu:2)");
  if (hwloc_topology_load(raw) != 0) return hwloc_error("synthetic topology load");
  return from_hwloc(std::move(handle), "synthetic " + text);
}

Result<Topology> Topology::load_file(const std::string& path) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) return hwloc_error("topology init");
  Handle handle(raw);
  // Keep everything the file holds: it was written by hwloc's own filters.
  hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_ALL);
  if (hwloc_topology_set_xml(raw, path.c_str()) != 0 || hwloc_topology_load(raw) != 0)
    return Status(ErrorCode::kInvalidArgument,
                  path + ": cannot be read as an hwloc XML topology (lstopo-no-graphics -i " +
                      path + " says why)",
                  errno);
  GPURUN_ASSIGN_OR_RETURN(Topology topo, from_hwloc(std::move(handle), "file " + path));
  Status status = topo.read_link_infos(topo.handle_.get());
  if (!status.ok()) return status.prepend(path);
  return topo;
}

Result<Topology> Topology::load(Io io) {
  const std::string& dump_path = params::dump().get();
  if (io == Io::kAuto && params::io().get().has_value())
    io = *params::io().get() ? Io::kAlways : Io::kNever;
  if (io == Io::kAuto && !dump_path.empty()) io = Io::kAlways;
  const std::string& file = params::file().get();
  Result<Topology> topo = file.empty() ? load_host(io) : load_file(file);
  if (topo.ok() && !dump_path.empty()) {
    GPURUN_TRY(topo->dump(dump_path));
    GPURUN_LOG(info, topo, "topology written to %s", dump_path.c_str());
  }
  return topo;
}

Result<Topology> Topology::from_hwloc(Handle handle, std::string source) {
  hwloc_topology_t raw = handle.get();
  Topology topo;
  topo.source_ = std::move(source);
  topo.is_this_system_ = hwloc_topology_is_thissystem(raw) != 0;
  topo.read_cpus(raw);
  topo.read_io(raw);
  GPURUN_LOG(debug, topo, "topology %s packages %d numa %zu cores %d pus %d gpus %zu nics %zu",
             topo.source_.c_str(), topo.num_packages_, topo.numa_nodes_.size(), topo.num_cores(),
             topo.num_pus(), topo.gpus_.size(), topo.nics_.size());
  topo.handle_ = std::shared_ptr<hwloc_topology>(handle.release(), HwlocDeleter{});
  return topo;
}

void Topology::read_cpus(hwloc_topology* raw) {
  num_packages_ = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_PACKAGE);
  for (int i = 0; i < num_packages_; ++i)
    package_cpus_.push_back(
        cpuset_of(hwloc_get_obj_by_type(raw, HWLOC_OBJ_PACKAGE, static_cast<unsigned>(i))->cpuset));
  all_pus_ = cpuset_of(hwloc_topology_get_topology_cpuset(raw));
  hwloc_obj_type_t core_type =
      hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE : HWLOC_OBJ_PU;
  // Some virtual machines expose PUs without cores: each PU is then a core.
  int ncores = hwloc_get_nbobjs_by_type(raw, core_type);
  for (int i = 0; i < ncores; ++i) {
    hwloc_obj_t core = hwloc_get_obj_by_type(raw, core_type, static_cast<unsigned>(i));
    cores_.push_back(Core{.index = i,
                          .package = package_index(raw, core),
                          .l3 = l3_index(raw, core),
                          .pus = cpuset_of(core->cpuset)});
  }
  int nnuma = hwloc_get_nbobjs_by_type(raw, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < nnuma; ++i) {
    hwloc_obj_t node = hwloc_get_obj_by_type(raw, HWLOC_OBJ_NUMANODE, static_cast<unsigned>(i));
    hwloc_obj_t package = hwloc_get_ancestor_obj_by_type(raw, HWLOC_OBJ_PACKAGE, node);
    numa_nodes_.push_back(
        NumaNode{.index = i,
                 .os_index = static_cast<int>(node->os_index),
                 .package = package != nullptr ? static_cast<int>(package->logical_index) : -1,
                 .cpus = cpuset_of(node->cpuset)});
  }
}

std::vector<Core> Topology::cores_within(const CpuSet& allowed) const {
  std::vector<Core> out;
  for (const Core& core : cores_) {
    CpuSet pus = core.pus.intersect(allowed);
    if (pus.empty()) continue;
    out.push_back(
        Core{.index = core.index, .package = core.package, .l3 = core.l3, .pus = std::move(pus)});
  }
  return out;
}

int Topology::numa_of(const CpuSet& cpus) const {
  for (const NumaNode& node : numa_nodes_)
    if (includes(node.cpus, cpus)) return node.index;
  return -1;
}

int Topology::package_of(const CpuSet& cpus) const {
  for (std::size_t i = 0; i < package_cpus_.size(); ++i)
    if (includes(package_cpus_[i], cpus)) return static_cast<int>(i);
  return -1;
}

HostLink Topology::host_link(const CpuSet& a, const CpuSet& b) const {
  const CpuSet& first = a.empty() ? all_pus_ : a;
  const CpuSet& second = b.empty() ? all_pus_ : b;
  int numa = numa_of(first);
  if (numa >= 0 && numa == numa_of(second)) return HostLink::kNuma;
  int package = package_of(first);
  if (package >= 0 && package == package_of(second)) return HostLink::kPackage;
  return HostLink::kSys;
}

std::optional<int> Topology::gpu_by_bus_id(std::string_view bus_id) const {
  std::optional<std::string> normal = normalize_bus_id(bus_id);
  if (!normal) return std::nullopt;
  for (const Gpu& gpu : gpus_)
    if (gpu.bus_id == *normal) return gpu.index;
  return std::nullopt;
}

std::optional<int> Topology::nic_by_name(std::string_view name) const {
  for (const Nic& nic : nics_) {
    if (nic.name == name) return nic.index;
    for (const std::string& device : nic.devices)
      if (device == name) return nic.index;
  }
  return std::nullopt;
}

}  // namespace gpurun::topo
