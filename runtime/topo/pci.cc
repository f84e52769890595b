// GPUs and NICs from hwloc's PCI tree, and the path classes between them.
#include <hwloc.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <tuple>

#include "runtime/topo/topology.h"

namespace gpurun::topo {
namespace {

constexpr unsigned kNvidia = 0x10de;
constexpr unsigned kClassVga = 0x0300;
constexpr unsigned kClass3d = 0x0302;

CpuSet cpuset_of(hwloc_const_bitmap_t bitmap) {
  std::vector<int> cpus;
  for (int cpu = hwloc_bitmap_first(bitmap); cpu != -1; cpu = hwloc_bitmap_next(bitmap, cpu))
    cpus.push_back(cpu);
  return CpuSet(std::move(cpus));
}

std::string bus_id_of(hwloc_obj_t pcidev) {
  const auto& pci = pcidev->attr->pcidev;
  char text[32];
  std::snprintf(text, sizeof text, "%04x:%02x:%02x.%x", pci.domain, pci.bus, pci.dev, pci.func);
  return text;
}

bool is_pci_bridge(hwloc_obj_t obj) {
  return obj != nullptr && obj->type == HWLOC_OBJ_BRIDGE &&
         obj->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_PCI;
}

bool is_host_bridge(hwloc_obj_t obj) {
  return obj != nullptr && obj->type == HWLOC_OBJ_BRIDGE &&
         obj->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST;
}

// Where an I/O object attaches to the CPUs: its nearest non-I/O ancestor's CPUs, NUMA node
// (when that ancestor holds exactly one) and package.
struct Locality {
  CpuSet cpus;
  int numa = -1;
  int package = -1;
};

Locality locality_of(hwloc_topology_t raw, hwloc_obj_t obj) {
  hwloc_obj_t anchor = hwloc_get_non_io_ancestor_obj(raw, obj);
  Locality out;
  if (anchor == nullptr) return out;
  out.cpus = cpuset_of(anchor->cpuset);
  if (anchor->nodeset != nullptr && hwloc_bitmap_weight(anchor->nodeset) == 1) {
    hwloc_obj_t node = hwloc_get_numanode_obj_by_os_index(
        raw, static_cast<unsigned>(hwloc_bitmap_first(anchor->nodeset)));
    if (node != nullptr) out.numa = static_cast<int>(node->logical_index);
  }
  hwloc_obj_t package = anchor->type == HWLOC_OBJ_PACKAGE
                            ? anchor
                            : hwloc_get_ancestor_obj_by_type(raw, HWLOC_OBJ_PACKAGE, anchor);
  if (package != nullptr) out.package = static_cast<int>(package->logical_index);
  return out;
}

const char* info_of(hwloc_obj_t obj, const char* name) {
  const char* value = hwloc_obj_get_info_by_name(obj, name);
  return value != nullptr ? value : "";
}

// PCI order: domain, bus, device, function, which the zero-padded bus id strings sort in.
template <class T>
std::vector<std::size_t> order_by_bus_id(const std::vector<T>& devices) {
  std::vector<std::size_t> order(devices.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return devices[a].bus_id < devices[b].bus_id; });
  return order;
}

template <class T>
std::vector<T> permuted(std::vector<T>& items, const std::vector<std::size_t>& order) {
  std::vector<T> out;
  for (std::size_t i : order) out.push_back(std::move(items[i]));
  return out;
}

}  // namespace

void Topology::read_io(hwloc_topology* raw) {
  for (hwloc_obj_t dev = hwloc_get_next_pcidev(raw, nullptr); dev != nullptr;
       dev = hwloc_get_next_pcidev(raw, dev)) {
    has_io_ = true;
    const auto& pci = dev->attr->pcidev;
    if (pci.vendor_id == kNvidia && (pci.class_id == kClass3d || pci.class_id == kClassVga))
      add_gpu(raw, dev);
  }
  for (hwloc_obj_t os = hwloc_get_next_osdev(raw, nullptr); os != nullptr;
       os = hwloc_get_next_osdev(raw, os)) {
    auto type = os->attr->osdev.type;
    if (type != HWLOC_OBJ_OSDEV_OPENFABRICS && type != HWLOC_OBJ_OSDEV_NETWORK) continue;
    if (os->parent == nullptr || os->parent->type != HWLOC_OBJ_PCI_DEVICE) continue;
    add_nic(raw, os->parent);
  }
  sort_devices();
}

void Topology::add_gpu(hwloc_topology* raw, hwloc_obj* pcidev) {
  Locality where = locality_of(raw, pcidev);
  const char* model = info_of(pcidev, "gpurun.name");
  if (*model == '\0') model = info_of(pcidev, "PCIDevice");
  gpus_.push_back(Gpu{.bus_id = bus_id_of(pcidev),
                      .name = model,
                      .uuid = info_of(pcidev, "gpurun.uuid"),
                      .numa = where.numa,
                      .package = where.package,
                      .cpus = std::move(where.cpus)});
  gpu_places_.push_back(place_of(pcidev));
}

// Called once per network or OpenFabrics OS device: the first makes the NIC, later ones of the
// same PCI device add their names.
void Topology::add_nic(hwloc_topology* raw, hwloc_obj* pcidev) {
  std::string bus_id = bus_id_of(pcidev);
  auto it = std::find_if(nics_.begin(), nics_.end(),
                         [&](const Nic& nic) { return nic.bus_id == bus_id; });
  if (it == nics_.end()) {
    Locality where = locality_of(raw, pcidev);
    nics_.push_back(Nic{.bus_id = bus_id,
                        .numa = where.numa,
                        .package = where.package,
                        .cpus = std::move(where.cpus)});
    nic_places_.push_back(place_of(pcidev));
    it = nics_.end() - 1;
  }
  Nic& nic = *it;
  nic.devices.clear();
  for (hwloc_obj_t child = pcidev->io_first_child; child != nullptr; child = child->next_sibling) {
    if (child->type != HWLOC_OBJ_OS_DEVICE) continue;
    auto type = child->attr->osdev.type;
    if (type == HWLOC_OBJ_OSDEV_OPENFABRICS) {
      nic.rdma = true;
      nic.name = child->name;
    } else if (type == HWLOC_OBJ_OSDEV_NETWORK && !nic.rdma) {
      nic.name = child->name;
    }
    if (type == HWLOC_OBJ_OSDEV_OPENFABRICS || type == HWLOC_OBJ_OSDEV_NETWORK)
      nic.devices.emplace_back(child->name);
  }
}

void Topology::sort_devices() {
  std::vector<std::size_t> order = order_by_bus_id(gpus_);
  gpus_ = permuted(gpus_, order);
  gpu_places_ = permuted(gpu_places_, order);
  order = order_by_bus_id(nics_);
  nics_ = permuted(nics_, order);
  nic_places_ = permuted(nic_places_, order);
  for (std::size_t i = 0; i < gpus_.size(); ++i) gpus_[i].index = static_cast<int>(i);
  for (std::size_t i = 0; i < nics_.size(); ++i) nics_[i].index = static_cast<int>(i);
  direct_links_.assign(gpus_.size() * gpus_.size(), 0);
  switch_links_.assign(gpus_.size(), 0);
  p2p_.assign(gpus_.size() * gpus_.size(), P2pStatus::kUnknown);
}

// The switches above a device, counted as NCCL does from Linux's PCI tree: a device's parent
// is a switch's downstream port, and that port's parent the switch's upstream port; a bridge
// whose parent is not a PCI bridge is a root port, part of the host bridge.
Topology::PciPlace Topology::place_of(hwloc_obj* object) const {
  PciPlace place{.object = object->gp_index};
  hwloc_obj_t port = object->parent;
  while (is_pci_bridge(port) && is_pci_bridge(port->parent)) {
    place.switches.push_back(port->parent->gp_index);
    port = port->parent->parent;
  }
  for (hwloc_obj_t up = object->parent; up != nullptr; up = up->parent) {
    if (is_host_bridge(up)) {
      place.host_bridge = up->gp_index;
      break;
    }
  }
  return place;
}

Topology::Device Topology::device(DeviceRef ref) const {
  if (ref.kind == DeviceRef::Kind::kGpu) {
    const Gpu& gpu = gpus_.at(static_cast<std::size_t>(ref.index));
    return Device{gpu.numa, gpu.package, &gpu_places_[static_cast<std::size_t>(ref.index)]};
  }
  const Nic& nic = nics_.at(static_cast<std::size_t>(ref.index));
  return Device{nic.numa, nic.package, &nic_places_[static_cast<std::size_t>(ref.index)]};
}

PathClass Topology::path(DeviceRef a, DeviceRef b) const {
  Device first = device(a);
  Device second = device(b);
  if (first.place->object == second.place->object) return PathClass::LOC;
  if (a.kind == DeviceRef::Kind::kGpu && b.kind == DeviceRef::Kind::kGpu &&
      nvlinks(a.index, b.index) > 0)
    return PathClass::NVL;
  const auto& up_a = first.place->switches;
  const auto& up_b = second.place->switches;
  for (std::size_t i = 0; i < up_a.size(); ++i) {
    auto j = std::find(up_b.begin(), up_b.end(), up_a[i]);
    if (j != up_b.end())
      return i + static_cast<std::size_t>(j - up_b.begin()) == 0 ? PathClass::PIX : PathClass::PXB;
  }
  if (first.place->host_bridge != 0 && first.place->host_bridge == second.place->host_bridge)
    return PathClass::PHB;
  if (first.numa >= 0 && second.numa >= 0)
    return first.numa == second.numa ? PathClass::PHB : PathClass::SYS;
  if (first.package >= 0 && first.package == second.package) return PathClass::PHB;
  return PathClass::SYS;
}

PathClass Topology::gpu_path(int gpu_a, int gpu_b) const {
  return path({DeviceRef::Kind::kGpu, gpu_a}, {DeviceRef::Kind::kGpu, gpu_b});
}

PathClass Topology::gpu_nic_path(int gpu, int nic) const {
  return path({DeviceRef::Kind::kGpu, gpu}, {DeviceRef::Kind::kNic, nic});
}

std::optional<std::string> normalize_bus_id(std::string_view text) {
  unsigned domain = 0, bus = 0, dev = 0, func = 0;
  std::string copy(text);
  int consumed = 0;
  bool with_domain =
      std::sscanf(copy.c_str(), "%x:%x:%x.%x%n", &domain, &bus, &dev, &func, &consumed) == 4 &&
      consumed == static_cast<int>(copy.size());
  if (!with_domain) {
    domain = 0;
    consumed = 0;
    if (std::sscanf(copy.c_str(), "%x:%x.%x%n", &bus, &dev, &func, &consumed) != 3 ||
        consumed != static_cast<int>(copy.size()))
      return std::nullopt;
  }
  if (domain > 0xffff || bus > 0xff || dev > 0x1f || func > 7) return std::nullopt;
  char out[32];
  std::snprintf(out, sizeof out, "%04x:%02x:%02x.%x", domain, bus, dev, func);
  return std::string(out);
}

}  // namespace gpurun::topo
