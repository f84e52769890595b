// Which kind of memory a user buffer is: every call that takes a buffer asks, so that the
// memory kind travels with the buffer through pml and coll (DESIGN.md decision 4). Without an
// accelerator that can hold device memory, the answer is host at the cost of one load.
#pragma once

#include "runtime/accel/accelerator.h"

namespace gpurun::api {

// Set at MPI_Init: an accelerator that can hold device memory is installed and usable.
extern bool g_device_memory;

inline accel::MemoryKind memory_of(const void* buffer) {
  if (!g_device_memory || buffer == nullptr) [[likely]]
    return accel::MemoryKind::kHost;
  return accel::current().query(buffer).kind;
}

}  // namespace gpurun::api
