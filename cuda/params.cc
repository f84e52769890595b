#include "cuda/params.h"

namespace gpurun::cuda {

std::span<const std::pair<std::string_view, Mode>> param_enum_names(Mode) {
  static constexpr std::pair<std::string_view, Mode> kNames[] = {
      {"auto", Mode::kAuto}, {"on", Mode::kOn}, {"off", Mode::kOff}};
  return kNames;
}

namespace params {
namespace {

param::Param<Mode> g_mode(
    "GPURUN_CUDA", Mode::kAuto,
    "Use CUDA: auto (when a driver and a device are present), on (MPI_Init fails without "
    "them), off (the driver is never loaded and device buffers are refused).");
param::Param<std::string> g_library(
    "GPURUN_CUDA_LIBRARY", "libcuda.so.1",
    "CUDA driver library loaded (dlopen) at MPI_Init or at the first MPIX_Query_cuda_support.",
    param::Level::kAdvanced);
// 64 regions of 2 MiB cover the stacks, heaps and static buffers that small messages come
// from; a miss costs one cuPointerGetAttributes.
param::Param<int> g_host_cache(
    "GPURUN_CUDA_HOST_CACHE", 64,
    "2 MiB regions remembered as plain host memory, so that a host buffer is classified "
    "without a driver call; 0 asks the driver for every buffer (use 0 when host memory is "
    "unmapped and its addresses are then reused for CUDA virtual memory).",
    param::Level::kAdvanced);
param::Param<int> g_range_cache(
    "GPURUN_CUDA_RANGE_CACHE", 4096,
    "Device allocations remembered (address range, buffer id, device); the oldest is "
    "forgotten beyond this.",
    param::Level::kAdvanced);
// 4M runs of 24 bytes: 96 MiB of device memory for the most fragmented type allowed.
param::Param<std::int64_t> g_pack_max_runs(
    "GPURUN_CUDA_PACK_MAX_RUNS", std::int64_t{4} << 20,
    "Most contiguous blocks per element of a datatype packed on the device; types with more "
    "are refused (kUnsupported) and left to host staging.",
    param::Level::kAdvanced);
param::Param<int> g_layout_cache(
    "GPURUN_CUDA_LAYOUT_CACHE", 64,
    "Datatype layouts kept in device memory for the pack and unpack kernels (per device).",
    param::Level::kAdvanced);

}  // namespace

const param::Param<Mode>& mode() { return g_mode; }
const param::Param<std::string>& library() { return g_library; }
const param::Param<int>& host_cache() { return g_host_cache; }
const param::Param<int>& range_cache() { return g_range_cache; }
const param::Param<std::int64_t>& pack_max_runs() { return g_pack_max_runs; }
const param::Param<int>& layout_cache() { return g_layout_cache; }

}  // namespace params
}  // namespace gpurun::cuda
