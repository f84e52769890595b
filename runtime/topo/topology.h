// The topology model: what one host is made of, from hwloc (and NVML for NVLink), or from an
// hwloc XML file. One model serves the launcher (placement, binding, rank-to-GPU and NIC
// choice) and the runtime (path choice between ranks, path_policy.h).
//
// It holds packages, NUMA nodes and cores with their PUs, and, when I/O devices were loaded,
// the GPUs (NVIDIA PCI devices of class 3D or VGA, named by PCI bus id, never by "cudaN": a
// CUDA device is matched with cudaDeviceGetByPCIBusId), the NICs (PCI devices with an
// OpenFabrics or network OS device), where each sits in the PCI tree (host bridge, PCIe
// switches, NUMA node), and for each GPU pair the NVLink count and NVML's peer-to-peer status.
//
// A Topology is immutable once loaded; its const methods are thread-safe. It is cheap to copy
// (the hwloc topology is shared).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/topo/cpu_set.h"
#include "runtime/topo/path_class.h"

struct hwloc_topology;
struct hwloc_obj;

namespace gpurun::topo {

struct Core {
  int index = 0;    // logical index among all cores, in topology order
  int package = 0;  // logical index of the package holding it
  int l3 = -1;      // logical index of the L3 cache above it; -1 when it has none
  CpuSet pus;       // OS indices of its PUs
};

struct NumaNode {
  int index = 0;     // logical index
  int os_index = 0;  // the kernel's node number
  int package = -1;  // logical index of its package, -1 when it has none
  CpuSet cpus;
};

struct Gpu {
  int index = 0;       // position in PCI bus id order: "GPU<index>" in gpurun's output
  std::string bus_id;  // "0000:18:00.0", lower-case hex
  std::string name;    // the model, when hwloc or NVML names it; else empty
  std::string uuid;    // "GPU-...", when NVML or the file gives it; else empty
  int numa = -1;       // logical index of the NUMA node it is attached to; -1 when unknown
  int package = -1;    // logical index of its package; -1 when unknown
  CpuSet cpus;         // the CPUs near it
};

struct Nic {
  int index = 0;       // position in PCI bus id order: "NIC<index>"
  std::string name;    // its RDMA device (mlx5_0) when it has one, else its interface (eth0)
  std::string bus_id;  // "0000:19:00.0"
  bool rdma = false;   // has an OpenFabrics (verbs) device
  std::vector<std::string> devices;  // every OS device name on it (mlx5_0, ib0)
  int numa = -1;
  int package = -1;
  CpuSet cpus;
};

// NVML's peer-to-peer read status between two GPUs.
enum class P2pStatus : std::uint8_t {
  kUnknown,  // no NVML data (NVML absent, or the file has none)
  kOk,
  kChipset,      // the chipset does not support it
  kGpu,          // the GPU does not support it
  kTopology,     // not across this I/O hub topology (typically across sockets)
  kRegkey,       // disabled by a driver registry key
  kUnsupported,  // not supported, no reason given
};
std::string_view p2p_status_name(P2pStatus status);    // file form: "ok", "topology"
std::string_view p2p_status_reason(P2pStatus status);  // "IOH topology not supported"
std::optional<P2pStatus> parse_p2p_status(std::string_view name);

// "0000:18:00.0" from any of "18:00.0", "0000:18:00.0", "00000000:18:00.0" (NVML, CUDA),
// upper or lower case; nullopt when `text` is no PCI bus id.
std::optional<std::string> normalize_bus_id(std::string_view text);

struct DeviceRef {
  enum class Kind : std::uint8_t { kGpu, kNic };
  Kind kind = Kind::kGpu;
  int index = 0;
};

class Topology {
 public:
  // Whether to load I/O devices (GPUs, NICs, the PCI tree). kAuto loads them only when this
  // host has an NVIDIA GPU (a look at /sys/bus/pci), or when GPURUN_TOPO_IO says so: the PCI
  // discovery costs about 10 ms, which gpurun's start-up does not pay without GPUs.
  enum class Io : std::uint8_t { kAuto, kNever, kAlways };

  // This machine. With GPUs, NVLink and P2P data come from NVML when it can be loaded.
  static Result<Topology> load_host(Io io = Io::kAuto);
  // An hwloc synthetic description, e.g. "pack:2 core:4 pu:2", for tests on any machine.
  static Result<Topology> load_synthetic(std::string_view description);
  // An hwloc XML file, with gpurun's NVLink and P2P info attributes (README.md).
  static Result<Topology> load_file(const std::string& path);
  // What gpurun and the library use: the file named by GPURUN_TOPO_FILE when set, else this
  // host (I/O devices when `io` or GPURUN_TOPO_IO ask for them, or GPURUN_TOPO_DUMP is set).
  // When GPURUN_TOPO_DUMP names a file, the topology is written there.
  static Result<Topology> load(Io io = Io::kAuto);

  // Writes the topology as hwloc XML with gpurun's info attributes, so that load_file()
  // gives it back; the file is replaced atomically.
  Status dump(const std::string& path) const;

  int num_packages() const { return num_packages_; }
  int num_cores() const { return static_cast<int>(cores_.size()); }
  int num_pus() const { return static_cast<int>(all_pus_.size()); }
  std::span<const Core> cores() const { return cores_; }
  std::span<const NumaNode> numa_nodes() const { return numa_nodes_; }
  std::span<const Gpu> gpus() const { return gpus_; }
  std::span<const Nic> nics() const { return nics_; }
  const CpuSet& all_pus() const { return all_pus_; }
  // False for synthetic and file topologies: their CPUs are not this machine's, so binding to
  // them is meaningless (hwloc's HWLOC_THISSYSTEM=1 says a file describes this machine).
  bool is_this_system() const { return is_this_system_; }
  // Whether I/O devices were loaded: without them there are no GPUs or NICs to know of.
  bool has_io() const { return has_io_; }
  // Where it came from: "this host", "file <path>", "synthetic <description>".
  const std::string& source() const { return source_; }
  // Where the NVLink and P2P data came from ("NVML", "file"), or why there is none.
  const std::string& link_source() const { return link_source_; }

  // The cores that have at least one PU in `allowed`, each restricted to its allowed PUs: what
  // a process whose affinity is `allowed` can place ranks on.
  std::vector<Core> cores_within(const CpuSet& allowed) const;

  // NVLink links between two GPUs: direct links, or through NVSwitches the links of the GPU
  // with fewer. 0 for the same GPU or without NVLink data.
  int nvlinks(int gpu_a, int gpu_b) const;
  P2pStatus p2p(int gpu_a, int gpu_b) const;
  // The path class between two devices of this host. PIX and PXB count PCIe switches (an
  // upstream port with its downstream ports is one switch), PHB covers host bridges within one
  // NUMA node (nvidia-smi's NODE), SYS crosses NUMA nodes. Never NET.
  PathClass path(DeviceRef a, DeviceRef b) const;
  PathClass gpu_path(int gpu_a, int gpu_b) const;
  PathClass gpu_nic_path(int gpu, int nic) const;
  // Where two CPU sets are relative to each other (empty sets stand for the whole machine).
  HostLink host_link(const CpuSet& a, const CpuSet& b) const;
  // The NUMA node (logical index) or package holding all of `cpus`, -1 when none does.
  int numa_of(const CpuSet& cpus) const;
  int package_of(const CpuSet& cpus) const;

  std::optional<int> gpu_by_bus_id(std::string_view bus_id) const;
  std::optional<int> nic_by_name(std::string_view name) const;

  // Replaces the NVLink and P2P data with what NVML (`library`, loaded with dlopen) reports for
  // these GPUs. On failure nothing changes and the Status says why (kNotFound: no NVML here).
  // load_host() calls it; not thread-safe, so call it before the topology is shared.
  Status update_links_from_nvml(const std::string& library);

  // The hwloc topology this model was built from, for libraries that accept one instead of
  // discovering their own (PMIx's PMIX_TOPOLOGY2). Owned by this Topology (and its copies).
  hwloc_topology* hwloc_handle() const { return handle_.get(); }

 private:
  struct HwlocDeleter {
    void operator()(hwloc_topology* topology) const;
  };
  using Handle = std::unique_ptr<hwloc_topology, HwlocDeleter>;
  // Where a GPU or NIC sits in the PCI tree (pci.cc).
  struct PciPlace {
    std::vector<std::uint64_t> switches;  // hwloc gp_index of each switch's upstream port,
                                          // from the device up
    std::uint64_t host_bridge = 0;        // gp_index, 0 when none
    std::uint64_t object = 0;             // the device's own gp_index
  };
  struct Device {
    int numa;
    int package;
    const PciPlace* place;
  };

  static Result<Topology> from_hwloc(Handle handle, std::string source);
  void read_cpus(hwloc_topology* raw);
  void read_io(hwloc_topology* raw);
  void add_gpu(hwloc_topology* raw, hwloc_obj* pcidev);
  void add_nic(hwloc_topology* raw, hwloc_obj* pcidev);
  void sort_devices();
  PciPlace place_of(hwloc_obj* object) const;
  Device device(DeviceRef ref) const;
  // NVLink and P2P data (links.cc).
  Status read_link_infos(hwloc_topology* raw);
  Status read_gpu_infos(hwloc_topology* raw, int gpu);
  Status add_link_infos(hwloc_topology* copy) const;
  std::size_t pair(int gpu_a, int gpu_b) const;

  std::shared_ptr<hwloc_topology> handle_;
  std::vector<Core> cores_;
  std::vector<NumaNode> numa_nodes_;
  std::vector<CpuSet> package_cpus_;
  std::vector<Gpu> gpus_;
  std::vector<Nic> nics_;
  std::vector<PciPlace> gpu_places_;
  std::vector<PciPlace> nic_places_;
  std::vector<int> direct_links_;  // gpus x gpus: NVLinks from one GPU to the other
  std::vector<int> switch_links_;  // per GPU: NVLinks to NVSwitches
  std::vector<P2pStatus> p2p_;     // gpus x gpus: NVML's status from the first to the second
  CpuSet all_pus_;
  int num_packages_ = 0;
  bool is_this_system_ = false;
  bool has_io_ = false;
  std::string source_;
  std::string link_source_;
};

}  // namespace gpurun::topo
