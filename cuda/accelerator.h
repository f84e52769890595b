// The CUDA implementation of accel::Accelerator, installed at MPI_Init when CUDA is usable
// (api/wiring.cc), and whether CUDA is usable at all. This header needs no CUDA header: these
// functions exist in every build (without CUDA built, CUDA is never usable).
//
// The accelerator classifies pointers through the process memory map (cuda/memory_map.h: a
// host pointer in a remembered region costs one atomic load, others one
// cuPointerGetAttributes) and runs copies that touch device memory on the internal stream of
// that device (cuda/contexts.h), waited for. No context is created before a copy touches
// device memory.
#pragma once

#include <memory>
#include <string>

#include "runtime/accel/accelerator.h"

namespace gpurun::cuda {

struct AcceleratorConfig {
  // The GPUs gpurun assigned to this rank (bootstrap key gpurun.gpus: PCI bus ids, its own
  // first), or empty when it assigned none.
  std::string assigned_gpus;
};

// Whether CUDA is usable in this process: built, not turned off (GPURUN_CUDA=off), a driver
// that is not the toolkit's stub, and a device. Loads the driver on first call (cuInit and
// cuDeviceGetCount; no context) and logs once why it is unusable.
bool usable();
// Why CUDA is unusable ("" when usable).
std::string unusable_reason();
// Whether MPI_Init must fail because CUDA is unusable although GPURUN_CUDA=on asks for it.
bool required();

// The accelerator over the process's CUDA state, or nullptr when CUDA is unusable.
std::unique_ptr<accel::Accelerator> create_accelerator(const AcceleratorConfig& config);

}  // namespace gpurun::cuda
