#include "cuda/ipc/params.h"

namespace gpurun::cuda::ipc::params {
namespace {

// Below 32K the staged path (one pipelined copy through pinned host memory on each side) costs
// about what the IPC handshake and a copy-engine launch cost; above it IPC moves the data once.
param::Param<param::Size> g_min_size(
    "GPURUN_CUDA_IPC_MIN_SIZE", param::Size{32768},
    "Smallest device message moved by CUDA IPC between ranks of one host; smaller ones (and "
    "any that IPC cannot serve) are staged through pinned host memory.");
param::Param<param::Size> g_stage_chunk(
    "GPURUN_CUDA_IPC_STAGE_CHUNK", param::Size{512 * 1024},
    "Size of the pinned host chunks through which staged device data is copied, two per "
    "transfer so that the GPU copy of one overlaps the host copy of the other.");
param::Param<param::Size> g_cache_size(
    "GPURUN_CUDA_IPC_CACHE_SIZE", param::Size{std::uint64_t{4} << 30},
    "Bytes of peers' GPU memory kept mapped after a transfer (the IPC cache); the least "
    "recently used mappings go beyond it, since a mapping keeps its owner's memory alive.");
param::Param<int> g_cache_entries(
    "GPURUN_CUDA_IPC_CACHE_ENTRIES", 256,
    "Most peer allocations kept mapped after a transfer (the IPC cache).");
param::Param<int> g_slots(
    "GPURUN_CUDA_IPC_SLOTS", 64,
    "Device messages to one peer that may wait for it to read them by IPC at once; further "
    "ones are staged.",
    param::Level::kAdvanced);
param::Param<param::List> g_handles(
    "GPURUN_CUDA_IPC_HANDLES", param::List{},
    "Kinds of IPC handle used (legacy: cudaMalloc memory, vmm: cuMemCreate memory, pool: "
    "cudaMallocAsync pools); memory of the others is staged. Empty: all.",
    param::Level::kAdvanced);

}  // namespace

const param::Param<param::Size>& min_size() { return g_min_size; }
const param::Param<param::Size>& stage_chunk() { return g_stage_chunk; }
const param::Param<param::Size>& cache_size() { return g_cache_size; }
const param::Param<int>& cache_entries() { return g_cache_entries; }
const param::Param<int>& slots() { return g_slots; }
const param::Param<param::List>& handles() { return g_handles; }

}  // namespace gpurun::cuda::ipc::params
