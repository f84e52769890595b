// Communicator queries and error handlers on communicators (MPI_Barrier is with the
// collectives, api/coll_alltoall.cc).
#include "api/checks.h"
#include "api/comm_build.h"

namespace gpurun::api {
namespace {

bool is_predefined_errhandler(MPI_Errhandler handler) {
  return handler == MPI_ERRORS_ARE_FATAL || handler == MPI_ERRORS_RETURN ||
         handler == MPI_ERRORS_ABORT;
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPI_Comm_rank(MPI_Comm comm, int* rank) {
  GPURUN_API_ENTER("MPI_Comm_rank");
  GPURUN_CHECK_COMM(entry, comm);
  GPURUN_CHECK_NOT_NULL(comm, rank);
  *rank = entry->comm->rank();
  return MPI_SUCCESS;
}

extern "C" int PMPI_Comm_size(MPI_Comm comm, int* size) {
  GPURUN_API_ENTER("MPI_Comm_size");
  GPURUN_CHECK_COMM(entry, comm);
  GPURUN_CHECK_NOT_NULL(comm, size);
  *size = entry->comm->size();
  return MPI_SUCCESS;
}

extern "C" int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  GPURUN_API_ENTER("MPI_Comm_set_errhandler");
  GPURUN_CHECK_COMM(entry, comm);
  if (!is_predefined_errhandler(errhandler)) {
    return raise(call, comm, MPI_ERR_ARG, "argument errhandler (0x%x) is not an error handler",
                 static_cast<unsigned>(errhandler));
  }
  entry->errhandler = errhandler;
  return MPI_SUCCESS;
}

extern "C" int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  GPURUN_API_ENTER("MPI_Comm_get_errhandler");
  GPURUN_CHECK_COMM(entry, comm);
  GPURUN_CHECK_NOT_NULL(comm, errhandler);
  *errhandler = entry->errhandler;
  return MPI_SUCCESS;
}

GPURUN_MPI_ALIAS(MPI_Comm_rank)
GPURUN_MPI_ALIAS(MPI_Comm_size)
GPURUN_MPI_ALIAS(MPI_Comm_set_errhandler)
GPURUN_MPI_ALIAS(MPI_Comm_get_errhandler)
