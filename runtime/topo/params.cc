#include "runtime/topo/params.h"

namespace gpurun::topo::params {
namespace {

param::Param<std::string> g_file(
    "GPURUN_TOPO_FILE", "",
    "hwloc XML file to take the topology from instead of this host (tests, or a machine "
    "without NVML): placement and path choice follow it; binding is applied only when it is "
    "this machine (HWLOC_THISSYSTEM=1).");
param::Param<std::string> g_dump(
    "GPURUN_TOPO_DUMP", "",
    "File to write the detected topology to (hwloc XML with NVLink and P2P data), for "
    "GPURUN_TOPO_FILE elsewhere.");
param::Param<std::optional<bool>> g_io(
    "GPURUN_TOPO_IO", std::nullopt,
    "Load I/O devices (GPUs, NICs, PCI tree): auto loads them when an NVIDIA GPU is on the "
    "PCI bus.",
    param::Level::kAdvanced);
param::Param<std::string> g_nvml_library(
    "GPURUN_TOPO_NVML_LIBRARY", "libnvidia-ml.so.1",
    "NVML library loaded (dlopen) for NVLink and peer-to-peer data when GPUs are present.",
    param::Level::kAdvanced);
param::Param<bool> g_p2p(
    "GPURUN_TOPO_P2P", true,
    "Use GPU peer access (cuda_ipc) for device buffers between ranks of one host; 0 stages "
    "them through host memory.");
// auto: wherever NVML does not report peer access off, as UCX's and Open MPI's cuda_ipc do;
// NCCL_P2P_LEVEL's values are the same classes.
param::Param<std::optional<PathClass>> g_p2p_level(
    "GPURUN_TOPO_P2P_LEVEL", std::nullopt,
    "Worst path class (LOC, NVL, PIX, PXB, PHB, SYS) over which GPU peer access is used; "
    "auto: wherever the driver allows it.");
// PXB: GPUDirect RDMA through a CPU's root complex is usually slower than staging through
// host memory; NCCL's NCCL_NET_GDR_LEVEL defaults to PXB for the same reason.
param::Param<PathClass> g_gdr_level(
    "GPURUN_TOPO_GDR_LEVEL", PathClass::PXB,
    "Worst GPU-to-NIC path class (PIX, PXB, PHB, SYS) over which device buffers go to the "
    "network directly (GPUDirect RDMA) instead of through host memory.");
param::Param<bool> g_staging(
    "GPURUN_TOPO_STAGING", false,
    "Stage every device buffer through host memory (no cuda_ipc, no GPUDirect RDMA).");
param::Param<std::optional<HostCopy>> g_copy(
    "GPURUN_TOPO_COPY", std::nullopt,
    "How a large message between two cores of a host moves faster, which the shm eager limit and "
    "the collectives of two ranks follow: pipeline (through shared memory), cma (single copy), or "
    "auto (gpurun measures it before it starts the ranks; unknown under other launchers).");

}  // namespace

const param::Param<std::string>& file() { return g_file; }
const param::Param<std::string>& dump() { return g_dump; }
const param::Param<std::optional<bool>>& io() { return g_io; }
const param::Param<std::string>& nvml_library() { return g_nvml_library; }
const param::Param<bool>& p2p() { return g_p2p; }
const param::Param<std::optional<PathClass>>& p2p_level() { return g_p2p_level; }
const param::Param<PathClass>& gdr_level() { return g_gdr_level; }
const param::Param<bool>& staging() { return g_staging; }
const param::Param<std::optional<HostCopy>>& copy() { return g_copy; }

PolicyKnobs policy_knobs() {
  return PolicyKnobs{.p2p = g_p2p.get(),
                     .p2p_level = g_p2p_level.get(),
                     .gdr_level = g_gdr_level.get(),
                     .staging = g_staging.get()};
}

}  // namespace gpurun::topo::params
