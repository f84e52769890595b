/* MPI_Comm_call_errhandler on a communicator with MPI_ERRORS_ARE_FATAL (the default) ends the
 * job, naming the code and its text. Rank 0 would otherwise wait in the barrier. */
#include "mtest.h"

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
