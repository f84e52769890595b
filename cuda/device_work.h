// Internal to cuda/: what the device functions of device.h share. A unit of work runs on one
// device, on the caller's stream or on gpurun's internal one (waited for at the end), with the
// device's primary context current.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>

#include "cuda/device.h"
#include "cuda/layout_cache.h"
#include "cuda/state.h"
#include "runtime/base/status.h"

namespace gpurun::cuda {

struct Work {
  State* state = nullptr;
  int device = 0;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  bool internal = false;  // gpurun's stream: finish() waits for it

  const DriverApi& api() const { return state->api(); }
};

// The state, context and stream for work on `device`. The caller then makes the context
// current (ScopedContext) for the duration of the work.
Result<Work> begin_work(State& state, int device, Stream stream);
// Waits for the work when it ran on the internal stream.
Status finish_work(const Work& work);

// The process's layout cache (made on first use).
LayoutCache& layouts(State& state);

// Device memory for the duration of a unit of work, allocated in stream order where the
// driver can (cuMemAllocAsync), else with cuMemAlloc (and freed after the stream drains).
class Scratch {
 public:
  static Result<Scratch> make(const Work& work, std::size_t bytes);
  Scratch(Scratch&& other) noexcept;
  Scratch& operator=(Scratch&&) = delete;
  ~Scratch();
  CUdeviceptr address() const { return ptr_; }

 private:
  Scratch(const Work& work, CUdeviceptr ptr, bool async) : work_(&work), ptr_(ptr), async_(async) {}
  const Work* work_;
  CUdeviceptr ptr_ = 0;
  bool async_ = false;
};

// Moves [offset, offset + length) of the packed stream between `typed` (device memory) and
// `packed` (device-accessible memory) with the pack kernels, on the work's stream.
Status move_window(const Work& work, const core::Datatype& type, bool pack,
                   std::uintptr_t typed, std::uintptr_t packed, std::int64_t offset,
                   std::int64_t length);

bool on_device(const PointerInfo& info);

}  // namespace gpurun::cuda
