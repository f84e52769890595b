// The local calls of the API on buffers of any memory kind: MPI_Reduce_local, MPI_Pack and
// MPI_Unpack (and their _c forms) with device or managed memory.
//
// Native when the accelerator does the work on the device: reduce() for the (op, type) pairs
// that check_reduce() takes with both operands on one device; pack()/unpack() when the typed
// buffer is device memory and the accelerator has pack kernels. Otherwise staged: the bytes the
// call touches in each device buffer are copied into host memory by the accelerator, the host
// code (core::Op::apply, core::Datatype::pack/unpack) runs on those copies, and what it wrote is
// copied back. Mixed host and device operands are staged. Host-only calls run the host code.
//
// Only the accelerator given is used, and no MPI state: unit tests drive these functions with a
// test-double accelerator. Thread-safe as far as the accelerator and the op are (a user op runs
// on the caller's thread, without any lock held here).
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/accel/accelerator.h"
#include "runtime/base/status.h"
#include "runtime/core/datatype.h"
#include "runtime/core/op.h"

namespace gpurun::api::local {

// How a call ran, for tests and logs.
enum class Path : std::uint8_t {
  kHost,    // every buffer is host memory (or there was nothing to move)
  kNative,  // on the device, by the accelerator
  kStaged,  // through host copies
};

// inout[i] = in[i] op inout[i], for MPI_Reduce_local.
struct Reduce {
  const core::Op* op = nullptr;
  const core::Datatype* type = nullptr;  // committed
  const void* in = nullptr;
  void* inout = nullptr;
  std::int64_t count = 0;
};
Result<Path> reduce(accel::Accelerator& accelerator, const Reduce& args);

// `count` elements of `type` at `typed` and their packed form at `packed` (count x size bytes,
// the user's packed buffer at the position), for MPI_Pack (typed -> packed) and MPI_Unpack.
struct Move {
  const core::Datatype* type = nullptr;  // committed
  void* typed = nullptr;
  std::int64_t count = 0;
  void* packed = nullptr;
};
Result<Path> pack(accel::Accelerator& accelerator, const Move& args);
Result<Path> unpack(accel::Accelerator& accelerator, const Move& args);

}  // namespace gpurun::api::local
