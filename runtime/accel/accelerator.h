// Accelerator: what the runtime asks of a GPU stack without naming it. The host-only
// implementation answers "host" for every pointer; the CUDA implementation (cuda/) replaces it
// when CUDA is usable. Thread-safe.
//
// Besides classifying pointers and copying, an accelerator offers what the collectives need
// to work on device buffers without naming CUDA: host memory the device copies fast to and from
// (pinned: the staging buffers of collectives), device memory (scratch), and reductions run on
// the device. Each has a default that says "not here" (nullptr, kUnsupported), which the
// host-only accelerator keeps, so callers fall back to plain host memory or host staging.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "runtime/accel/memory.h"
#include "runtime/accel/stream.h"
#include "runtime/base/status.h"

// The reduction interface names the op and datatype of runtime/core, a layer above this one:
// declared here, never dereferenced by this layer (the CUDA implementation, above core, does).
namespace gpurun::core {
class Datatype;
class Op;
}  // namespace gpurun::core

namespace gpurun::accel {

// inout[i] = in[i] op inout[i] for `count` elements of `type`, both buffers device or managed
// memory of one device. `in` and `inout` are addresses as MPI programs give them: the first
// byte of data is at address + type->true_lb(), as for core::Op::apply (an implementation
// classifies the data's memory there: the address itself may lie before the allocation).
struct DeviceReduce {
  const core::Op* op = nullptr;
  const core::Datatype* type = nullptr;  // committed
  const void* in = nullptr;
  void* inout = nullptr;
  std::int64_t count = 0;
};

// `count` elements of `type` between a typed buffer in device or managed memory and their
// packed form (count x type->size() bytes, no gaps) in any memory.
struct DevicePack {
  const core::Datatype* type = nullptr;  // committed
  void* typed = nullptr;                 // read by pack(), written by unpack()
  std::int64_t count = 0;
  void* packed = nullptr;  // written by pack(), read by unpack()
};

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

  // `bytes` of host memory that device copies reach fast (pinned), or nullptr when this
  // accelerator has none (the caller then uses ordinary host memory). Freed with free_host().
  virtual void* allocate_host(std::size_t /*bytes*/) { return nullptr; }
  virtual void free_host(void* /*ptr*/) {}
  // `bytes` of memory on `device` (MemoryInfo::device), freed with free_device().
  // kUnsupported without devices.
  virtual Result<void*> allocate_device(int /*device*/, std::size_t /*bytes*/) {
    return Status(ErrorCode::kUnsupported, "no device memory without an accelerator");
  }
  virtual void free_device(void* /*ptr*/) {}
  // Whether reduce() takes (op, type): ok, or why not (kUnsupported: user ops, types without a
  // device representation; kInvalidArgument: the standard does not define op on type). Makes
  // no device call.
  virtual Status check_reduce(const core::Op& /*op*/, const core::Datatype& /*type*/) const {
    return Status(ErrorCode::kUnsupported, "no device reductions without an accelerator");
  }
  // Runs a reduction on the device; blocks until it is done.
  virtual Status reduce(const DeviceReduce& /*args*/) {
    return Status(ErrorCode::kUnsupported, "no device reductions without an accelerator");
  }
  // Packs (unpacks) on the device: the typed buffer must be device or managed memory; blocks
  // until done. kUnsupported when this accelerator cannot (then before it touched anything):
  // the caller stages through host memory and core::Datatype::pack/unpack.
  virtual Status pack(const DevicePack& /*args*/) {
    return Status(ErrorCode::kUnsupported, "no device pack without an accelerator");
  }
  virtual Status unpack(const DevicePack& /*args*/) {
    return Status(ErrorCode::kUnsupported, "no device unpack without an accelerator");
  }
  // The application's stream whose handle (a cudaStream_t) is `handle`, for enqueued
  // operations. kUnsupported without devices; kInvalidArgument when the handle names no stream.
  virtual Result<std::unique_ptr<Stream>> wrap_stream(std::uintptr_t /*handle*/) {
    return Status(ErrorCode::kUnsupported, "no device streams without an accelerator");
  }
};

// The process's accelerator: the host-only one until another is installed.
Accelerator& current();
// Installs `accelerator` for the rest of the process (at MPI_Init, by the composition root).
void install(std::unique_ptr<Accelerator> accelerator);

}  // namespace gpurun::accel
