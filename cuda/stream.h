// The accelerator's view of an application's CUDA stream, on which enqueued MPI operations are
// ordered (runtime/accel/stream.h, api/enqueue.h).
//
// The start and release words lie in pinned host memory mapped for the device
// (cuMemHostAlloc with DEVICEMAP), in the stream's context, each on a cache line of its own.
// The stream writes the start word and waits on the release word by stream memory operations
// (cuStreamWriteValue32; cuStreamWaitValue32 with GEQ, a cyclic comparison): no host callback
// stalls the stream, and nothing the application runs on other streams waits. Where the
// driver refuses stream memory operations (CUDA_ERROR_NOT_SUPPORTED), host functions on the
// stream (cuLaunchHostFunc) write and wait instead; the log says so once.
//
// A stream being captured into a CUDA graph is refused (kUnsupported): the host side of an
// enqueued operation happens once, where a graph would replay its stream side.
#pragma once

#include <cstdint>
#include <memory>

#include "cuda/driver.h"
#include "runtime/accel/stream.h"

namespace gpurun::cuda {

// The stream whose cudaStream_t (the same pointer as CUstream) is `handle`. kInvalidArgument
// when the driver does not know it; kUnsupported when the driver lacks what it takes.
Result<std::unique_ptr<accel::Stream>> wrap_stream(const DriverApi& api, std::uintptr_t handle);

}  // namespace gpurun::cuda
