// Argument checks shared by the MPI functions. Each macro returns from the calling function
// with the error (through the communicator's error handler) when the argument is bad; `call`
// is the Call of GPURUN_API_ENTER. The *_ARG forms name the argument in the message (for calls
// with two of a kind: sendcount and recvcount); the short forms name it count, datatype, tag.
#pragma once

#include <climits>

#include "api/call.h"
#include "api/datatypes.h"
#include "api/state.h"

namespace gpurun::api {

// The largest tag (the MPI_TAG_UB attribute).
inline constexpr int kTagUpperBound = INT_MAX;

}  // namespace gpurun::api

// Looks up communicator `handle` into `entry` (a CommEntry*), or fails with MPI_ERR_COMM.
#define GPURUN_CHECK_COMM(entry, handle)                                          \
  ::gpurun::api::CommEntry* entry = ::gpurun::api::find_comm(handle);             \
  if (entry == nullptr) [[unlikely]]                                              \
  return ::gpurun::api::raise(call, MPI_COMM_NULL, MPI_ERR_COMM,                  \
                              (handle) == MPI_COMM_NULL                           \
                                  ? "argument comm is MPI_COMM_NULL"              \
                                  : "argument comm (0x%x) is not a communicator", \
                              static_cast<unsigned>(handle))

// The same for a call that refuses an intercommunicator with `error_class`; `why` ends the
// message ("argument comm is an intercommunicator, " why).
#define GPURUN_CHECK_NOT_INTER(entry, handle, error_class, why) \
  GPURUN_CHECK_COMM(entry, handle);                             \
  if (entry->comm->inter()) [[unlikely]]                        \
  return ::gpurun::api::raise(call, handle, error_class,        \
                              "argument comm is an intercommunicator, " why)
// A call that intercommunicators cannot take here (MPI_Comm_split_type, the neighbourhood
// collectives): MPI_ERR_UNSUPPORTED_OPERATION.
#define GPURUN_CHECK_INTRACOMM(entry, handle)                          \
  GPURUN_CHECK_NOT_INTER(entry, handle, MPI_ERR_UNSUPPORTED_OPERATION, \
                         "which gpurun does not take in this call")
// A call that the standard defines on intracommunicators only (the topology constructors and
// mappers, MPI_Comm_create_group): MPI_ERR_COMM.
#define GPURUN_CHECK_INTRA_ONLY(entry, handle) \
  GPURUN_CHECK_NOT_INTER(entry, handle, MPI_ERR_COMM, "and this call takes an intracommunicator")

#define GPURUN_CHECK_COUNT_ARG(comm_h, arg, count)                                              \
  if ((count) < 0) [[unlikely]]                                                                 \
  return ::gpurun::api::raise(call, comm_h, MPI_ERR_COUNT, "argument " arg " %lld is negative", \
                              static_cast<long long>(count))
#define GPURUN_CHECK_COUNT(comm_h, count) GPURUN_CHECK_COUNT_ARG(comm_h, "count", count)

// Looks up datatype `handle` into `type` (a const core::Datatype*); it must be committed.
#define GPURUN_CHECK_TYPE_ARG(comm_h, arg, type, handle)                                    \
  const ::gpurun::core::Datatype* type = ::gpurun::api::find_datatype(handle);              \
  if (type == nullptr) [[unlikely]]                                                         \
    return ::gpurun::api::raise(call, comm_h, MPI_ERR_TYPE,                                 \
                                (handle) == MPI_DATATYPE_NULL                               \
                                    ? "argument " arg " is MPI_DATATYPE_NULL"               \
                                    : "argument " arg " (0x%x) is not a datatype (freed?)", \
                                static_cast<unsigned>(handle));                             \
  if (!type->committed()) [[unlikely]]                                                      \
  return ::gpurun::api::raise(call, comm_h, MPI_ERR_TYPE,                                   \
                              "argument " arg " is not committed (call MPI_Type_commit)")
#define GPURUN_CHECK_TYPE(comm_h, type, handle) \
  GPURUN_CHECK_TYPE_ARG(comm_h, "datatype", type, handle)

// A null buffer with data to move (the datatype's lower bound does not make it an address),
// and MPI_IN_PLACE, which is a buffer of collectives only.
#define GPURUN_CHECK_BUFFER_ARG(comm_h, arg, buf, count, type)                         \
  if ((buf) == nullptr && (count) > 0 && (type)->size() > 0 && (type)->true_lb() == 0) \
      [[unlikely]]                                                                     \
    return ::gpurun::api::raise(call, comm_h, MPI_ERR_BUFFER,                          \
                                "argument " arg " is a null pointer with count %lld",  \
                                static_cast<long long>(count));                        \
  if ((buf) == MPI_IN_PLACE) [[unlikely]]                                              \
  return ::gpurun::api::raise(call, comm_h, MPI_ERR_BUFFER,                            \
                              "argument " arg " is MPI_IN_PLACE, which only collectives take")
#define GPURUN_CHECK_BUFFER(comm_h, buf, count, type) \
  GPURUN_CHECK_BUFFER_ARG(comm_h, "buf", buf, count, type)

// A destination or source rank: in range, or MPI_PROC_NULL (and MPI_ANY_SOURCE if allowed).
#define GPURUN_CHECK_RANK(comm_h, entry, arg, rank, allow_any)                                   \
  if (((rank) < 0 || (rank) >= (entry)->comm->size()) && (rank) != MPI_PROC_NULL &&              \
      !((allow_any) && (rank) == MPI_ANY_SOURCE)) [[unlikely]]                                   \
  return ::gpurun::api::raise(call, comm_h, MPI_ERR_RANK,                                        \
                              "argument " arg " %d is not a rank of the communicator (size %d)", \
                              rank, (entry)->comm->size())

#define GPURUN_CHECK_TAG_ARG(comm_h, arg, tag, allow_any)                               \
  if (((tag) < 0 || (tag) > ::gpurun::api::kTagUpperBound) &&                           \
      !((allow_any) && (tag) == MPI_ANY_TAG)) [[unlikely]]                              \
  return ::gpurun::api::raise(call, comm_h, MPI_ERR_TAG,                                \
                              "argument " arg " %d is outside 0..MPI_TAG_UB (%d)", tag, \
                              ::gpurun::api::kTagUpperBound)
#define GPURUN_CHECK_TAG(comm_h, tag, allow_any) GPURUN_CHECK_TAG_ARG(comm_h, "tag", tag, allow_any)

// An output status, or array of them: a real one or MPI_STATUS(ES)_IGNORE, never null.
#define GPURUN_CHECK_STATUS_OUT(comm_h, arg, status)                        \
  if ((status) == nullptr) [[unlikely]]                                     \
  return ::gpurun::api::raise(call, comm_h, MPI_ERR_ARG,                    \
                              "argument " arg                               \
                              " is a null pointer (pass MPI_STATUS_IGNORE " \
                              "or MPI_STATUSES_IGNORE to ignore it)")
