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

// The kernel of a predefined op (not MPI_REPLACE, MPI_NO_OP or a user op) on `n` elements of
// `basic` laid out one after the other as in a packed stream: arrays of the C type, and for the
// pairs the value immediately followed by the index (no padding). nullptr where the standard
// does not define the op on the type.
ReduceKernel packed_kernel(OpKind kind, BasicType basic);

// MPI_MINLOC / MPI_MAXLOC on pairs in their C struct layout (the index at its aligned offset,
// the struct padded to its alignment), which is how the predefined pair types sit in memory.
// nullptr for other ops or types.
ReduceKernel struct_kernel(OpKind kind, BasicType basic);

// The alignment the kernels assume for element addresses of `basic` (1 for the packed pairs,
// which the kernels read byte-wise; the struct alignment for struct_kernel pairs).
std::int64_t packed_alignment(BasicType basic);
std::int64_t struct_alignment(BasicType basic);
// Bytes of one pair in its C struct layout (0 for other types).
std::int64_t struct_size(BasicType basic);

}  // namespace gpurun::core
