// Knobs of the cuda module (GPURUN_CUDA_*), listed by `gpurun --info params`.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "runtime/base/param.h"

namespace gpurun::cuda {

// GPURUN_CUDA: whether gpurun uses CUDA at all.
enum class Mode : std::uint8_t {
  kAuto,  // when a driver and a device are present
  kOn,    // required: MPI_Init fails without a usable driver and device
  kOff,   // never load the driver
};
std::span<const std::pair<std::string_view, Mode>> param_enum_names(Mode);

namespace params {
const param::Param<Mode>& mode();                   // GPURUN_CUDA
const param::Param<std::string>& library();         // GPURUN_CUDA_LIBRARY
const param::Param<int>& host_cache();              // GPURUN_CUDA_HOST_CACHE
const param::Param<int>& range_cache();             // GPURUN_CUDA_RANGE_CACHE
const param::Param<std::int64_t>& pack_max_runs();  // GPURUN_CUDA_PACK_MAX_RUNS
const param::Param<int>& layout_cache();            // GPURUN_CUDA_LAYOUT_CACHE
}  // namespace params

}  // namespace gpurun::cuda
