// Path policy: which transport carries data between two ranks, over which path, and why
// better paths were refused. A pure function of the topology, the two ranks' places, the
// memory kind, the transports available and the knobs (DESIGN.md decision 3): the runtime
// calls it once per peer and memory kind at connect time, never per message, and
// `gpurun --explain` prints what it says.
//
// Transports are described here by plain values (TransportInfo), not by runtime/transport's
// classes, which sit above this module.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/topo/cpu_set.h"
#include "runtime/topo/path_class.h"
#include "runtime/topo/topology.h"

namespace gpurun::topo {

enum class Reach : std::uint8_t { kSelf, kHost, kNetwork };
std::string_view reach_name(Reach reach);  // "self", "host", "network"

// What the policy needs to know of a transport.
struct TransportInfo {
  std::string name;  // "self", "shm", "cuda_ipc", "ucx", "ofi"
  Reach reach = Reach::kHost;
  bool host_memory = true;     // moves host buffers
  bool device_memory = false;  // moves device buffers itself: by mapping the peer GPU's memory
                               // (reach host: cuda_ipc) or by GPUDirect RDMA (reach network)
  std::string disabled_by;     // why it may not be used ("GPURUN_TRANSPORTS=^shm"); empty: usable
};

// One line per transport, "name reach memory[,memory]" ("cuda_ipc host device"), as the
// library's gpurun_info("transports") answers; parse_transports reads it back.
std::string format_transports(std::span<const TransportInfo> transports);
Result<std::vector<TransportInfo>> parse_transports(std::string_view text);

// Where a rank runs.
struct RankSite {
  int rank = 0;
  std::string host;  // ranks on one host share a topology
  CpuSet cpus;       // its binding; empty: not bound (anywhere on the host)
  int gpu = -1;      // its GPU, an index into its host's Topology::gpus(); -1: none
  int nic = -1;      // its NIC, an index into its host's Topology::nics(); -1: none
  // The path class between its GPU and its NIC, as its own host's topology says (set by
  // make_site; for a rank of another host, what that host published).
  std::optional<PathClass> gpu_nic;
  std::vector<int> hidden_gpus;  // GPUs of its host it cannot see (CUDA_VISIBLE_DEVICES)
};

// A rank's site on `topology`'s host; gpu_nic is filled when it has both a GPU and a NIC.
RankSite make_site(const Topology& topology, const RankSite& site);

enum class MemoryKind : std::uint8_t { kHost, kDevice };

// The knobs of the policy (params.h reads them from GPURUN_TOPO_*).
struct PolicyKnobs {
  bool p2p = true;                       // GPURUN_TOPO_P2P: GPU peer access between ranks
  std::optional<PathClass> p2p_level;    // GPURUN_TOPO_P2P_LEVEL: worst class for it; nullopt:
                                         // wherever NVML does not report it off
  PathClass gdr_level = PathClass::PXB;  // GPURUN_TOPO_GDR_LEVEL: worst GPU-NIC class for RDMA
  bool staging = false;                  // GPURUN_TOPO_STAGING: stage every device buffer
};

// A transport that failed for this pair at an earlier try ("IPC failed: ..."): the policy
// refuses it with that reason.
struct Failure {
  std::string transport;
  std::string reason;
};

struct PathQuery {
  const Topology* topology = nullptr;  // the host of `a`; of `b` too when they share a host
  const RankSite* a = nullptr;
  const RankSite* b = nullptr;
  MemoryKind memory = MemoryKind::kHost;
  std::span<const TransportInfo> transports;  // in order of preference within each reach
  PolicyKnobs knobs;
  std::span<const Failure> failed;
};

// A better path that was not taken.
struct Refusal {
  std::string transport;
  std::optional<PathClass> path;  // the class it would have had, when there is one
  std::string reason;             // "peer access off between GPU 0 and GPU 3 (...)"
};

struct PathChoice {
  std::string transport;
  HostLink host_link = HostLink::kSys;  // where the two ranks' CPUs are
  // Device buffers moved by the device itself: the GPU-GPU class (cuda_ipc), or the worse of
  // the two GPU-NIC classes (GPUDirect RDMA). Unset for host buffers and staged ones.
  std::optional<PathClass> device_path;
  bool staged = false;           // device data copied through host memory on the way
  std::vector<Refusal> refused;  // best first
};

// The path for `query`. kNotFound when no usable transport reaches the peer (every refusal is
// in the message); kInvalidArgument for a site that names no GPU or NIC of the topology.
Result<PathChoice> choose_path(const PathQuery& query);

// "cuda_ipc NVL", "shm same NUMA", "shm SYS, staged": one line for logs and --explain.
std::string describe(const PathChoice& choice);

}  // namespace gpurun::topo
