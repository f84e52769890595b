// Reduction op handles: the predefined ops (builtin handles MPI_MAX .. MPI_NO_OP, the values of
// mpi.h) and users' ops (MPI_Op_create: indirect handles into a table), as core::Op objects;
// and the op check that every reducing call makes.
//
// Lifetime: a user op lives until MPI_Op_free. An operation in flight that keeps a
// `const core::Op*` past the call that gave it (a nonblocking or persistent collective) should
// retain() it at start and release() it at completion: MPI_Op_free then ends the handle at once
// but keeps the op until the last release (the standard lets pending operations finish).
//
// Thread-safety: like every API table, under the API lock (MPI_THREAD_MULTIPLE).
#pragma once

#include <mpi.h>

#include "api/call.h"
#include "runtime/core/datatype.h"
#include "runtime/core/op.h"

namespace gpurun::api {

// The op a handle names, or nullptr when it names none (MPI_OP_NULL, a freed op, a handle of
// another kind). O(1).
const core::Op* find_op(MPI_Op handle);

// Checks the op argument of a reducing call (MPI_Reduce_local, the collectives that reduce)
// against the datatype it will be applied to. Raises MPI_ERR_OP through `comm`'s error handler,
// with a message naming the call, the op, the type and the rank, when the handle names no op,
// when it is MPI_REPLACE or MPI_NO_OP (the standard allows them in one-sided calls only), or
// when the standard does not define the predefined op on the type. Otherwise sets *op and
// returns MPI_SUCCESS.
int check_reduction_op(const Call& call, MPI_Comm comm, MPI_Op handle, const core::Datatype& type,
                       const core::Op** op);

// A user op for MPI_Op_create (fn) or MPI_Op_create_c (fn_c; exactly one is not null).
MPI_Op create_user_op(MPI_User_function* fn, MPI_User_function_c* fn_c, bool commutative);
// Ends a user op's handle. False when `handle` names no user op.
bool free_user_op(MPI_Op handle);

// Tells the user functions that run on this thread while it lives that `handle` names `type`
// (a user function receives the datatype handle the application passed). Without one, the
// handle is found from the type; set one where the call's handle is at hand. Nests.
class TypeHandleScope {
 public:
  TypeHandleScope(const core::Datatype* type, MPI_Datatype handle);
  ~TypeHandleScope();
  TypeHandleScope(const TypeHandleScope&) = delete;
  TypeHandleScope& operator=(const TypeHandleScope&) = delete;

 private:
  const core::Datatype* saved_type_;
  MPI_Datatype saved_handle_;
};

}  // namespace gpurun::api

// Looks up op `handle` into `op` (a const core::Op*) for a reduction on `type` (a
// const core::Datatype*), or returns the error (check_reduction_op).
#define GPURUN_CHECK_OP(comm_h, op, handle, type)                                                \
  const ::gpurun::core::Op* op = nullptr;                                                        \
  if (int gpurun_op_rc_ = ::gpurun::api::check_reduction_op(call, comm_h, handle, *(type), &op); \
      gpurun_op_rc_ != MPI_SUCCESS) [[unlikely]]                                                 \
  return gpurun_op_rc_
