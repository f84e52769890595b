// Contexts: the CUDA contexts and internal streams gpurun works in, per device, made on first
// use (never before a device buffer or a CUDA call needs them): the device's primary context,
// retained (the one the CUDA runtime uses, so gpurun shares the application's), and one
// non-blocking stream in it. Copies and kernels run on these streams, never on the legacy
// default stream, so they neither wait for nor hold up the application's work on it.
//
// Thread-safety: every member may be called concurrently. A stream is shared by every thread
// that works on its device; work on it runs in the order it was enqueued.
#pragma once

#include <cuda.h>

#include <array>
#include <mutex>

#include "cuda/driver.h"
#include "runtime/base/status.h"

namespace gpurun::cuda {

class Contexts {
 public:
  static constexpr int kMaxDevices = 64;

  explicit Contexts(const DriverApi& api) : api_(api) {}
  // Destroys the streams and releases the primary contexts it retained.
  ~Contexts();
  Contexts(const Contexts&) = delete;
  Contexts& operator=(const Contexts&) = delete;

  // The primary context of `device`, retained on first use.
  Result<CUcontext> context(int device);
  // The internal stream of `device`, created on first use (in its primary context).
  Result<CUstream> stream(int device);

 private:
  struct Device {
    CUcontext context = nullptr;
    CUstream stream = nullptr;
  };
  Status check(int device) const;

  const DriverApi& api_;
  std::mutex mutex_;
  std::array<Device, kMaxDevices> devices_{};
};

// Makes `context` current on this thread for the scope, unless it already is; restores the
// previous one at the end.
class ScopedContext {
 public:
  ScopedContext(const DriverApi& api, CUcontext context);
  ~ScopedContext();
  ScopedContext(const ScopedContext&) = delete;
  ScopedContext& operator=(const ScopedContext&) = delete;
  // Whether the context was made current (the scope's work may go ahead).
  const Status& status() const { return status_; }

 private:
  const DriverApi& api_;
  bool pushed_ = false;
  Status status_;
};

}  // namespace gpurun::cuda
