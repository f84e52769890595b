// The CUDA resources of the cuda_ipc transport, made on first use (no CUDA call before a
// device buffer shows up): the driver, the context the transport works in, one internal
// non-blocking stream (never the legacy default stream), and pools of events and pinned host
// chunks.
//
// The context: the caller's current one when it has one, else the context of the device
// buffer at hand, else the primary context of that buffer's device (retained, released at
// the end). Every call into CUDA pushes it (Scope) and pops it after, so the application's
// current context is left as it was.
//
// Not thread-safe: the transport that owns it serialises calls.
#pragma once

#include <functional>
#include <vector>

#include "cuda/ipc/driver.h"

namespace gpurun::cuda::ipc {

using DriverSource = std::function<Result<Driver*>()>;

class Gpu {
 public:
  explicit Gpu(DriverSource source) : source_(std::move(source)) {}
  ~Gpu();
  Gpu(const Gpu&) = delete;
  Gpu& operator=(const Gpu&) = delete;

  // Whether a driver could be had (resolves it once; no context is made).
  Result<Driver*> driver();
  // Makes the context and stream on first use. The hints are buffers at hand (null, host or
  // device): the first device buffer's context, or its device's primary context, serves when
  // the thread has no current context; without one, the primary context of device `ordinal`.
  Status ready(const void* hint, const void* hint2 = nullptr, int ordinal = 0);
  bool is_ready() const { return stream_ != nullptr; }

  Driver& api() { return *driver_; }
  CUcontext context() const { return context_; }
  CUdevice device() const { return device_; }
  const CUuuid& uuid() const { return uuid_; }
  CUstream stream() const { return stream_; }

  Result<CUevent> take_event();
  void give_event(CUevent event);
  // A pinned host buffer of chunk_bytes().
  Result<void*> take_chunk();
  void give_chunk(void* chunk);
  std::size_t chunk_bytes() const { return chunk_bytes_; }
  void set_chunk_bytes(std::size_t bytes) { chunk_bytes_ = bytes; }

  // Copies `bytes` between any two kinds of memory on the internal stream and waits.
  Status copy_sync(void* dst, const void* src, std::size_t bytes);

  // The device ordinal (this process's numbering) with `uuid`, or -1 when it is not visible.
  int ordinal_of(const unsigned char uuid[16]);

  // Makes the transport's context current for its lifetime (after ready()).
  class Scope {
   public:
    explicit Scope(Gpu& gpu) : gpu_(gpu) { pushed_ = gpu.push(); }
    ~Scope() {
      if (pushed_) gpu_.pop();
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    Gpu& gpu_;
    bool pushed_;
  };

 private:
  bool push();
  void pop();
  Status choose_context(const void* hint, const void* hint2, int ordinal);

  DriverSource source_;
  Driver* driver_ = nullptr;
  Status driver_status_;
  bool resolved_ = false;
  CUcontext context_ = nullptr;
  CUdevice device_ = 0;
  CUuuid uuid_{};
  bool retained_primary_ = false;
  CUstream stream_ = nullptr;
  std::vector<CUevent> events_;
  std::vector<void*> chunks_;
  std::vector<void*> all_chunks_;
  std::size_t chunk_bytes_ = 512 * 1024;
};

}  // namespace gpurun::cuda::ipc
