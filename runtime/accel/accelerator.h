// Accelerator: what the runtime asks of a GPU stack without naming it. The host-only
// implementation answers "host" for every pointer; the CUDA implementation (cuda/) replaces it
// when CUDA is usable. Thread-safe.
#pragma once

#include <cstddef>
#include <memory>

#include "runtime/accel/memory.h"
#include "runtime/base/status.h"

namespace gpurun::accel {

class Accelerator {
 public:
  virtual ~Accelerator() = default;
  // A short name for logs: "host", "cuda".
  virtual const char* name() const = 0;
  // Whether device memory can be present at all (a usable driver and at least one device).
  virtual bool usable() const = 0;
  // The kind of memory `ptr` points to. Never fails: unknown pointers are host memory.
  virtual MemoryInfo query(const void* ptr) const = 0;
  // Copies between any two kinds of memory; blocks until the copy is done.
  virtual Status copy(void* dst, const void* src, std::size_t bytes) = 0;
};

// The process's accelerator: the host-only one until another is installed.
Accelerator& current();
// Installs `accelerator` for the rest of the process (at MPI_Init, by the composition root).
void install(std::unique_ptr<Accelerator> accelerator);

}  // namespace gpurun::accel
