// MPICH's fault-tolerance extension (User-Level Failure Mitigation): MPIX_Comm_failure_ack,
// MPIX_Comm_failure_get_acked, MPIX_Comm_agree, MPIX_Comm_shrink and MPIX_Comm_revoke, as they
// behave where a failed process ends the job.
//
// gpurun ends every rank of a job when one fails (gpurun --help: "When a rank fails"), so a
// process that runs never has a failed process to acknowledge or to leave out:
// MPIX_Comm_failure_ack acknowledges none, MPIX_Comm_failure_get_acked gives MPI_GROUP_EMPTY,
// MPIX_Comm_agree is the bitwise AND of every member's flag (on an intercommunicator, of both
// groups'), and MPIX_Comm_shrink makes a communicator of the same group (as MPI_Comm_create
// does: the error handler, no attributes). Revoking a communicator interrupts the operations
// other ranks have pending on it, which gpurun cannot do: MPIX_Comm_revoke fails with
// MPI_ERR_UNSUPPORTED_OPERATION. The MPIX_ERR_* classes stay out of mpi.h, so that a program
// that tests for the extension with #ifdef takes its path without it; a program built against
// MPICH that calls these functions runs unchanged.
#include "api/checks.h"
#include "api/comm_build.h"
#include "api/group.h"

namespace gpurun::api {
namespace {

int agree(MPI_Comm comm, const CommEntry& entry, int* flag) {
  int mine = *flag, agreed = 0;
  int rc = PMPI_Allreduce(&mine, &agreed, 1, MPI_INT, MPI_BAND, comm);
  if (rc == MPI_SUCCESS && entry.comm->inter()) {
    // Each side has the other side's AND; a second round gives both sides both.
    int both = agreed & mine;
    rc = PMPI_Allreduce(&both, &agreed, 1, MPI_INT, MPI_BAND, comm);
  }
  if (rc != MPI_SUCCESS) return rc;  // the allreduce reported it through comm's handler
  *flag = agreed;
  return MPI_SUCCESS;
}

int shrink(const Call& call, MPI_Comm comm, CommEntry& entry, MPI_Comm* newcomm) {
  if (entry.comm->inter()) return dup_inter(call, comm, entry, newcomm);
  CommSpec spec;
  spec.group = entry.comm->shared_group();
  spec.errhandler = entry.errhandler;
  spec.session = entry.session;
  return create_over(call, comm, entry, std::move(spec), newcomm);
}

}  // namespace
}  // namespace gpurun::api

using namespace gpurun::api;  // NOLINT(google-build-using-namespace): the C API's own layer

extern "C" int PMPIX_Comm_failure_ack(MPI_Comm comm) {
  GPURUN_API_ENTER("MPIX_Comm_failure_ack");
  GPURUN_CHECK_COMM(entry, comm);
  return MPI_SUCCESS;
}

extern "C" int PMPIX_Comm_failure_get_acked(MPI_Comm comm, MPI_Group* failedgrp) {
  GPURUN_API_ENTER("MPIX_Comm_failure_get_acked");
  GPURUN_CHECK_COMM(entry, comm);
  GPURUN_CHECK_NOT_NULL(comm, failedgrp);
  *failedgrp = MPI_GROUP_EMPTY;
  return MPI_SUCCESS;
}

extern "C" int PMPIX_Comm_agree(MPI_Comm comm, int* flag) {
  GPURUN_API_ENTER("MPIX_Comm_agree");
  GPURUN_CHECK_COMM(entry, comm);
  GPURUN_CHECK_NOT_NULL(comm, flag);
  return agree(comm, *entry, flag);
}

extern "C" int PMPIX_Comm_shrink(MPI_Comm comm, MPI_Comm* newcomm) {
  GPURUN_API_ENTER("MPIX_Comm_shrink");
  GPURUN_CHECK_COMM(entry, comm);
  GPURUN_CHECK_NOT_NULL(comm, newcomm);
  return shrink(call, comm, *entry, newcomm);
}

extern "C" int PMPIX_Comm_revoke(MPI_Comm comm) {
  GPURUN_API_ENTER("MPIX_Comm_revoke");
  GPURUN_CHECK_COMM(entry, comm);
  return raise(call, comm, MPI_ERR_UNSUPPORTED_OPERATION,
               "revoking a communicator is not supported: gpurun ends the job when a process "
               "fails, and cannot interrupt the operations other ranks have pending on it");
}

GPURUN_MPI_ALIAS(MPIX_Comm_failure_ack)
GPURUN_MPI_ALIAS(MPIX_Comm_failure_get_acked)
GPURUN_MPI_ALIAS(MPIX_Comm_agree)
GPURUN_MPI_ALIAS(MPIX_Comm_shrink)
GPURUN_MPI_ALIAS(MPIX_Comm_revoke)
