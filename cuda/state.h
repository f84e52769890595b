// The process's CUDA state: the driver, the memory map, the contexts and streams. It exists
// only when CUDA is usable; get() returns null otherwise, and code that has no State makes no
// CUDA call. Created on first use (MPI_Init, or the first device operation), never destroyed:
// it may be used until the process exits.
//
// Thread-safety: get() and configure() are thread-safe, and so is every object it hands out.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "cuda/accelerator.h"
#include "cuda/contexts.h"
#include "cuda/driver.h"
#include "cuda/memory_map.h"
#include "runtime/base/status.h"

namespace gpurun::cuda {

class State {
 public:
  // The process's state, or nullptr when CUDA is unusable (Driver::process() says why).
  static State* get();
  // Records what MPI_Init learnt (the assigned GPU); may come before or after get().
  static void configure(const AcceleratorConfig& config);

  const Driver& driver() const { return driver_; }
  const DriverApi& api() const { return *driver_.api(); }
  MemoryMap& memory() { return memory_; }
  Contexts& contexts() { return contexts_; }

  // The device this rank works on when no buffer says which: the one current in the calling
  // thread (the application's cudaSetDevice), else the one gpurun assigned, else device 0.
  // Creates no context.
  Result<int> home_device();

 private:
  explicit State(const Driver& driver);
  Result<int> assigned_device();

  const Driver& driver_;
  MemoryMap memory_;
  Contexts contexts_;
  std::mutex mutex_;
  std::string assigned_gpus_;
  int assigned_device_ = -2;  // -2: not looked up yet; -1: none
};

}  // namespace gpurun::cuda
