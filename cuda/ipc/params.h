// Knobs of the cuda_ipc transport and of the device staging path (GPURUN_CUDA_IPC_*).
#pragma once

#include "runtime/base/param.h"

namespace gpurun::cuda::ipc::params {

const param::Param<param::Size>& min_size();     // GPURUN_CUDA_IPC_MIN_SIZE
const param::Param<param::Size>& stage_chunk();  // GPURUN_CUDA_IPC_STAGE_CHUNK
const param::Param<param::Size>& cache_size();   // GPURUN_CUDA_IPC_CACHE_SIZE
const param::Param<int>& cache_entries();        // GPURUN_CUDA_IPC_CACHE_ENTRIES
const param::Param<int>& slots();                // GPURUN_CUDA_IPC_SLOTS
const param::Param<param::List>& handles();      // GPURUN_CUDA_IPC_HANDLES

}  // namespace gpurun::cuda::ipc::params
