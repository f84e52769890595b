// Path classes: how two devices of one host are connected, in the field's names (NCCL's and
// `nvidia-smi topo -m`'s), and where two ranks' CPUs sit relative to each other.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <utility>

namespace gpurun::topo {

// Best first: a smaller value is a shorter, faster path.
enum class PathClass : std::uint8_t {
  LOC,  // the same device
  NVL,  // NVLink, directly or through NVSwitches
  PIX,  // PCIe through at most one PCIe switch
  PXB,  // PCIe through several switches, without the host bridge
  PHB,  // PCIe through a host bridge (the CPU), within one NUMA node
  SYS,  // PCIe and the inter-socket (NUMA) link
  NET,  // another host, through the network
};

std::string_view path_class_name(PathClass path);  // "NVL"
// For knobs of type PathClass (case-insensitive names).
std::span<const std::pair<std::string_view, PathClass>> param_enum_names(PathClass);

// Where two ranks' CPUs are, for host memory: best first.
enum class HostLink : std::uint8_t {
  kSelf,     // the same rank
  kNuma,     // both within one NUMA node
  kPackage,  // both within one package (socket), not one NUMA node
  kSys,      // across the inter-socket link (or not bound within one socket)
  kNet,      // on different hosts
};

std::string_view host_link_name(
    HostLink link);  // "self", "same NUMA", "same package", "SYS", "NET"

}  // namespace gpurun::topo
