// Communicator queries (error handlers on communicators are in api/errhandler.cc, MPI_Barrier
// with the collectives, api/coll_alltoall.cc).
#include "api/checks.h"

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
  *size = entry->comm->shared_local_group()->size();
  return MPI_SUCCESS;
}

GPURUN_MPI_ALIAS(MPI_Comm_rank)
GPURUN_MPI_ALIAS(MPI_Comm_size)
