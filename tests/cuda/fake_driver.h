// A test double of the CUDA driver's pointer entry points: a list of fake allocations (no
// memory behind them; nothing is dereferenced) answered by cuPointerGetAttributes and
// cuMemGetAddressRange, with call counters, and cuPointerSetAttribute's SYNC_MEMOPS recorded.
// Single-threaded tests only.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <vector>

#include "cuda/driver.h"

namespace gpurun::cuda::testing {

struct FakeAllocation {
  std::uintptr_t base = 0;
  std::size_t size = 0;
  std::uint64_t buffer_id = 0;
  CUmemorytype type = CU_MEMORYTYPE_DEVICE;  // CU_MEMORYTYPE_HOST: pinned host memory
  bool managed = false;
  int device = 0;
};

struct FakeDriver {
  std::vector<FakeAllocation> allocations;
  int attribute_calls = 0;
  int range_calls = 0;
  CUresult fail_with = CUDA_SUCCESS;  // what cuPointerGetAttributes returns when not success
  // The base of each allocation that CU_POINTER_ATTRIBUTE_SYNC_MEMOPS was set on, in order.
  std::vector<std::uintptr_t> synchronized;

  // The table: only the three pointer entry points are set (a call to any other would crash).
  DriverApi api() const;
  void reset_counts() { attribute_calls = range_calls = 0; }
  // Replaces the allocation at `base` (a cudaFree and a cudaMalloc at the same address).
  void reallocate(std::uintptr_t base, std::uint64_t new_id, int device);

  static FakeDriver* current;  // the one the entry points answer from
};

}  // namespace gpurun::cuda::testing
