// Knobs of the topology module and its path policy (GPURUN_TOPO_*), listed by
// `gpurun --info params`.
#pragma once

#include <optional>
#include <string>

#include "runtime/base/param.h"
#include "runtime/topo/copy_probe.h"
#include "runtime/topo/path_class.h"
#include "runtime/topo/path_policy.h"

namespace gpurun::topo::params {

// GPURUN_TOPO_FILE: load the topology from this hwloc XML file instead of this host.
const param::Param<std::string>& file();
// GPURUN_TOPO_DUMP: write the topology that was loaded to this file.
const param::Param<std::string>& dump();
// GPURUN_TOPO_IO: load I/O devices (GPUs, NICs): auto (when an NVIDIA GPU is present), 1, 0.
const param::Param<std::optional<bool>>& io();
// GPURUN_TOPO_NVML_LIBRARY: the NVML library loaded for NVLink and P2P data.
const param::Param<std::string>& nvml_library();
// GPURUN_TOPO_P2P: GPU peer access (cuda_ipc) between ranks of one host.
const param::Param<bool>& p2p();
// GPURUN_TOPO_P2P_LEVEL: worst path class over which GPU peer access is used.
const param::Param<std::optional<PathClass>>& p2p_level();
// GPURUN_TOPO_GDR_LEVEL: worst GPU-NIC path class for device-direct network transfers.
const param::Param<PathClass>& gdr_level();
// GPURUN_TOPO_STAGING: stage every device buffer through host memory.
const param::Param<bool>& staging();
// GPURUN_TOPO_COPY: how large messages between cores move faster (copy_probe.h); auto: measured.
const param::Param<std::optional<HostCopy>>& copy();

// The path policy's knobs, from the values above.
PolicyKnobs policy_knobs();

}  // namespace gpurun::topo::params
