/* MPI_ERRORS_ABORT ends the job at the first error raised on the communicator, as
 * MPI_ERRORS_ARE_FATAL does; the duplicate inherits it. Rank 0 would otherwise wait in the
 * barrier. */
#include <stddef.h>

#include "mtest.h"

int main(int argc, char **argv) {
  int rank;
  MPI_Comm comm;
  MPI_Errhandler eh;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ABORT);
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Comm_get_errhandler(comm, &eh);
  if (eh != MPI_ERRORS_ABORT) MPI_Abort(MPI_COMM_WORLD, 99); /* not the handler expected */
  if (rank == 1) MPI_Comm_size(comm, NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
