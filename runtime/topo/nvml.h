// NVML, loaded at run time: NVLink links and peer-to-peer status between the GPUs of this
// host. gpurun declares the few NVML types and functions it calls itself (nvml.cc) and loads
// libnvidia-ml.so.1 with dlopen, so that one build runs on machines with and without the
// NVIDIA driver; where the library is absent, query() fails at once with kNotFound.
#pragma once

#include <string>
#include <vector>

#include "runtime/base/status.h"
#include "runtime/topo/topology.h"

namespace gpurun::topo::nvml {

inline constexpr char kSwitchPeer[] = "switch";

struct Device {
  std::string bus_id;  // normalized ("0000:18:00.0")
  std::string uuid;
  std::string name;
  // One entry per active NVLink: the peer GPU's bus id, or kSwitchPeer for a link to an
  // NVSwitch (or to anything that is not one of this host's GPUs).
  std::vector<std::string> nvlink_peers;
};

struct Report {
  std::vector<Device> devices;  // in NVML's order
  std::vector<P2pStatus> p2p;   // devices x devices, row-major; the diagonal is kOk
};

// Loads `library`, initializes NVML, reads every device, shuts NVML down and unloads the
// library. kNotFound: the library cannot be loaded; kUnsupported: it lacks a function
// gpurun needs; kIo: an NVML call failed (the message has NVML's error string).
Result<Report> query(const std::string& library);

}  // namespace gpurun::topo::nvml
