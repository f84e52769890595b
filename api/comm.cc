// Communicator queries, error handlers on communicators, and MPI_Barrier.
#include "api/call.h"
#include "api/state.h"

namespace gpurun::api {
namespace {

bool is_predefined_errhandler(MPI_Errhandler handler) {
  return handler == MPI_ERRORS_ARE_FATAL || handler == MPI_ERRORS_RETURN ||
         handler == MPI_ERRORS_ABORT;
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

// Looks up `handle` into `entry`, or returns MPI_ERR_COMM through the error handler.
#define GPURUN_FIND_COMM(entry, handle)                                                      \
  CommEntry* entry = find_comm(handle);                                                      \
  if (entry == nullptr) [[unlikely]]                                                         \
    return raise(call, MPI_COMM_NULL, MPI_ERR_COMM,                                          \
                 (handle) == MPI_COMM_NULL ? "argument comm is MPI_COMM_NULL"                \
                                           : "argument comm (0x%x) is not a communicator",   \
                 static_cast<unsigned>(handle))

extern "C" int PMPI_Comm_rank(MPI_Comm comm, int* rank) {
  GPURUN_API_ENTER("MPI_Comm_rank");
  GPURUN_FIND_COMM(entry, comm);
  GPURUN_CHECK_NOT_NULL(comm, rank);
  *rank = entry->comm->rank();
  return MPI_SUCCESS;
}

extern "C" int PMPI_Comm_size(MPI_Comm comm, int* size) {
  GPURUN_API_ENTER("MPI_Comm_size");
  GPURUN_FIND_COMM(entry, comm);
  GPURUN_CHECK_NOT_NULL(comm, size);
  *size = entry->comm->size();
  return MPI_SUCCESS;
}

extern "C" int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  GPURUN_API_ENTER("MPI_Comm_set_errhandler");
  GPURUN_FIND_COMM(entry, comm);
  if (!is_predefined_errhandler(errhandler)) {
    return raise(call, comm, MPI_ERR_ARG, "argument errhandler (0x%x) is not an error handler",
                 static_cast<unsigned>(errhandler));
  }
  entry->errhandler = errhandler;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  GPURUN_API_ENTER("MPI_Comm_get_errhandler");
  GPURUN_FIND_COMM(entry, comm);
  GPURUN_CHECK_NOT_NULL(comm, errhandler);
  *errhandler = entry->errhandler;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Barrier(MPI_Comm comm) {
  GPURUN_API_ENTER("MPI_Barrier");
  GPURUN_FIND_COMM(entry, comm);
  if (entry->comm->size() == 1) return MPI_SUCCESS;
  if (comm != MPI_COMM_WORLD) {
    return raise(call, comm, MPI_ERR_UNSUPPORTED_OPERATION,
                 "only MPI_COMM_WORLD and single-process communicators are supported so far");
  }
  // Through the launcher's fence until point-to-point transports carry collectives.
  gpurun::Status st = state().bootstrap->fence(/*collect_data=*/false);
  if (!st.ok()) return raise_status(call, comm, st);
  return MPI_SUCCESS;
}

GPURUN_MPI_ALIAS(MPI_Comm_rank)
GPURUN_MPI_ALIAS(MPI_Comm_size)
GPURUN_MPI_ALIAS(MPI_Comm_set_errhandler)
GPURUN_MPI_ALIAS(MPI_Comm_get_errhandler)
GPURUN_MPI_ALIAS(MPI_Barrier)
