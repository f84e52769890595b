// The loops behind the predefined ops: one function per (op, basic type), written once as a
// template and instantiated into a table, so that applying an op costs one table lookup and one
// indirect call per buffer, never a switch per element. The loops are plain element-wise loops
// over restrict pointers that the compiler vectorises.
//
// Internal to runtime/core (op.cc uses it; tests may).
#pragma once

#include <cstdint>

#include "runtime/core/datatype.h"
#include "runtime/core/op.h"

namespace gpurun::core {

// inout[i] = in[i] op inout[i] for `n` basic elements (pairs: n pairs).
using ReduceKernel = void (*)(const void* in, void* inout, std::int64_t n);

// out[i] = a[i] op b[i] for `n` basic elements: `loop` with the result in a third buffer.
using CombineKernel = void (*)(const void* a, const void* b, void* out, std::int64_t n);

// A loop and what it assumes about its elements.
struct Kernel {
  ReduceKernel loop = nullptr;      // nullptr: the standard does not define the op on the type
  std::int64_t unit = 0;            // bytes per element
  std::int64_t alignment = 1;       // of element addresses (1: read byte-wise)
  CombineKernel combine = nullptr;  // the same into a third buffer (arrays of C types only)
};

// The loop of a predefined op (not MPI_REPLACE, MPI_NO_OP or a user op) on elements of `basic`
// laid out one after the other as in a packed stream: arrays of the C type, and for the pairs
// the value immediately followed by the index (no padding; read byte-wise). Half precision
// uses the CPU's conversion instructions where it has them. One table lookup.
const Kernel& packed_kernel(OpKind kind, BasicType basic);

// The same loops without the CPU-specific substitutes, for tests.
ReduceKernel portable_kernel(OpKind kind, BasicType basic);

// MPI_MINLOC / MPI_MAXLOC on pairs in their C struct layout (the index at its aligned offset,
// the struct padded to its alignment), which is how the predefined pair types sit in memory.
// No loop for other ops or types.
const Kernel& struct_kernel(OpKind kind, BasicType basic);

}  // namespace gpurun::core
