// Work on device memory that the pml and coll call: reductions by kernels (every predefined op
// on every type the standard defines it for, with MPIX_C_FLOAT16 and MPIX_BFLOAT16), and
// packing non-contiguous datatypes by kernels. This header needs no CUDA header and these
// functions exist in every build: without CUDA (not built, or unusable here) they fail with
// kUnsupported and a message that says why, so callers stage through host memory instead.
//
// Streams: a call given a stream enqueues its work there and returns without waiting (the
// result is there when the stream reaches it); given none, it runs on gpurun's internal stream
// of the buffer's device and returns when the work is done. Never the legacy default stream.
// The caller keeps the buffers valid until the work is done.
//
// Thread-safety: every function may be called from any thread.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/base/status.h"
#include "runtime/core/datatype.h"
#include "runtime/core/op.h"

struct CUstream_st;

namespace gpurun::cuda {

// A CUDA stream (CUstream, cudaStream_t); nullptr: gpurun's internal stream, waited for.
using Stream = CUstream_st*;

// Whether reduce_on_device takes (op, type): ok; kInvalidArgument when the standard does not
// define the op on the type (the host's message); kUnsupported when the device cannot: user
// ops (they run on the host), types without a device representation (long double,
// binary128, their complex and pair types). Makes no CUDA call.
Status check_reduce(const core::Op& op, const core::Datatype& type);

struct ReduceArgs {
  const core::Op* op = nullptr;
  const void* in = nullptr;  // device or managed memory
  void* inout = nullptr;     // device or managed memory of the same device
  std::int64_t count = 0;
  const core::Datatype* type = nullptr;  // committed
  Stream stream = nullptr;
};

// inout[i] = in[i] op inout[i] for `count` elements of `type`, by a kernel. Contiguous types
// and the predefined pair types are reduced in place; other layouts are packed into device
// scratch, reduced there and unpacked. kInvalidArgument when a buffer is host memory.
Status reduce_on_device(const ReduceArgs& args);

struct PackArgs {
  const core::Datatype* type = nullptr;  // committed
  // The typed buffer, device or managed memory (read by pack, written by unpack).
  void* typed = nullptr;
  std::int64_t count = 0;
  std::size_t offset = 0;   // the window [offset, offset + length) of the packed stream
  std::size_t length = 0;
  // The packed bytes of the window: device, managed or host memory (pageable host memory goes
  // through device scratch).
  void* packed = nullptr;
  Stream stream = nullptr;
};

// Moves the window from the typed buffer into `packed` (pack) or back (unpack). Returns the
// bytes moved: less than length only at the end of the stream. kInvalidArgument when the typed
// buffer is host memory (core::Datatype::pack does that).
Result<std::size_t> pack(const PackArgs& args);
Result<std::size_t> unpack(const PackArgs& args);

// Why the functions above cannot run here, or ok when they can (usable CUDA with a driver new
// enough for the kernels of this build).
Status device_work_status();

}  // namespace gpurun::cuda
