// MPI_Op_create(_c), MPI_Op_free, MPI_Op_commutative, MPI_Reduce_local(_c). MPI_Reduce_local
// takes device and managed memory too (api/device_local.h: reduced on the device when the
// accelerator can, else staged through host memory).
#include "api/checks.h"
#include "api/device_local.h"
#include "api/memory.h"
#include "api/ops.h"

namespace gpurun::api {
namespace {

int create(const Call& call, MPI_User_function* fn, MPI_User_function_c* fn_c, int commute,
           MPI_Op* op) {
  if (fn == nullptr && fn_c == nullptr)
    return raise(call, MPI_COMM_NULL, MPI_ERR_ARG, "argument user_fn is a null pointer");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, op);
  *op = create_user_op(fn, fn_c, commute != 0);
  return MPI_SUCCESS;
}

// The checks of MPI_Reduce_local, under the API lock. On success the caller holds a reference
// on the type (and on a user op) so that it may apply the op without the lock.
int check_reduce_local(const Call& call, const void* inbuf, const void* inoutbuf,
                       std::int64_t count, MPI_Datatype datatype, MPI_Op op_handle,
                       core::DatatypeRef* type_ref, const core::Op** op_out) {
  GPURUN_CHECK_COUNT(MPI_COMM_NULL, count);
  GPURUN_CHECK_TYPE(MPI_COMM_NULL, type, datatype);
  GPURUN_CHECK_OP(MPI_COMM_NULL, op, op_handle, type);
  if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
    return raise(call, MPI_COMM_NULL, MPI_ERR_BUFFER,
                 "argument %s is MPI_IN_PLACE, which MPI_Reduce_local does not take",
                 inbuf == MPI_IN_PLACE ? "inbuf" : "inoutbuf");
  const bool data = count > 0 && type->size() > 0;
  if (data && type->true_lb() == 0 && (inbuf == nullptr || inoutbuf == nullptr))
    return raise(call, MPI_COMM_NULL, MPI_ERR_BUFFER,
                 "argument %s is a null pointer with count %lld",
                 inbuf == nullptr ? "inbuf" : "inoutbuf", static_cast<long long>(count));
  if (data && inbuf == inoutbuf)
    return raise(call, MPI_COMM_NULL, MPI_ERR_BUFFER,
                 "arguments inbuf and inoutbuf are the same buffer; they must not overlap");
  *type_ref = core::DatatypeRef(type);
  if (!op->is_predefined()) op->retain();
  *op_out = op;
  return MPI_SUCCESS;
}

// Applies the op outside the API lock: a user function may call MPI (MPI_Type_size on its
// datatype argument is common), which would deadlock on the lock under MPI_THREAD_MULTIPLE.
int reduce_local(const Call& call, const void* inbuf, void* inoutbuf, std::int64_t count,
                 MPI_Datatype datatype, MPI_Op op_handle) {
  if (phase() != Phase::kInitialized) [[unlikely]]
    return outside_init(call);
  core::DatatypeRef type;
  const core::Op* op = nullptr;
  {
    const BigLock lock;
    int rc = check_reduce_local(call, inbuf, inoutbuf, count, datatype, op_handle, &type, &op);
    if (rc != MPI_SUCCESS) return rc;
  }
  Status status;
  {
    // A user function gets the datatype handle. Without the lock, looking it up would race
    // with threads that create types, so the call's own handle is handed over; a single thread
    // finds it as the collectives' user functions do (which the tests then cover).
    const TypeHandleScope scope(g_thread_multiple ? type.get() : nullptr, datatype);
    if (!g_device_memory) [[likely]] {
      status = op->apply(inbuf, inoutbuf, count, *type);
    } else {
      local::Reduce args{
          .op = op, .type = type.get(), .in = inbuf, .inout = inoutbuf, .count = count};
      status = local::reduce(accel::current(), args).status();
    }
  }
  if (!op->is_predefined()) op->release();
  if (status.ok()) return MPI_SUCCESS;
  const BigLock lock;
  return raise_status(call, MPI_COMM_NULL, status);
}

}  // namespace
}  // namespace gpurun::api

using gpurun::api::Call;

extern "C" int PMPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  GPURUN_API_ENTER("MPI_Op_create");
  return gpurun::api::create(call, user_fn, nullptr, commute, op);
}
GPURUN_MPI_ALIAS(MPI_Op_create)

extern "C" int PMPI_Op_create_c(MPI_User_function_c* user_fn, int commute, MPI_Op* op) {
  GPURUN_API_ENTER("MPI_Op_create_c");
  return gpurun::api::create(call, nullptr, user_fn, commute, op);
}
GPURUN_MPI_ALIAS(MPI_Op_create_c)

extern "C" int PMPI_Op_free(MPI_Op* op) {
  GPURUN_API_ENTER("MPI_Op_free");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, op);
  const gpurun::core::Op* found = gpurun::api::find_op(*op);
  if (found != nullptr && found->is_predefined())
    return gpurun::api::raise(call, MPI_COMM_NULL, MPI_ERR_OP,
                              "argument op is the predefined %s, which cannot be freed",
                              found->name());
  if (!gpurun::api::free_user_op(*op))
    return gpurun::api::raise(call, MPI_COMM_NULL, MPI_ERR_OP,
                              *op == MPI_OP_NULL ? "argument op is MPI_OP_NULL"
                                                 : "argument op (0x%x) is not an op (freed, or "
                                                   "never created by MPI_Op_create)",
                              static_cast<unsigned>(*op));
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Op_free)

extern "C" int PMPI_Op_commutative(MPI_Op op, int* commute) {
  GPURUN_API_ENTER("MPI_Op_commutative");
  GPURUN_CHECK_NOT_NULL(MPI_COMM_NULL, commute);
  const gpurun::core::Op* found = gpurun::api::find_op(op);
  if (found == nullptr)
    return gpurun::api::raise(call, MPI_COMM_NULL, MPI_ERR_OP,
                              op == MPI_OP_NULL ? "argument op is MPI_OP_NULL"
                                                : "argument op (0x%x) is not an op (freed, or "
                                                  "never created by MPI_Op_create)",
                              static_cast<unsigned>(op));
  *commute = found->commutative() ? 1 : 0;
  return MPI_SUCCESS;
}
GPURUN_MPI_ALIAS(MPI_Op_commutative)

extern "C" int PMPI_Reduce_local(const void* inbuf, void* inoutbuf, int count,
                                 MPI_Datatype datatype, MPI_Op op) {
  const Call call{"MPI_Reduce_local"};
  return gpurun::api::reduce_local(call, inbuf, inoutbuf, count, datatype, op);
}
GPURUN_MPI_ALIAS(MPI_Reduce_local)

extern "C" int PMPI_Reduce_local_c(const void* inbuf, void* inoutbuf, MPI_Count count,
                                   MPI_Datatype datatype, MPI_Op op) {
  const Call call{"MPI_Reduce_local_c"};
  return gpurun::api::reduce_local(call, inbuf, inoutbuf, count, datatype, op);
}
GPURUN_MPI_ALIAS(MPI_Reduce_local_c)
