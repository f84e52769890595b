/* By default errors are fatal: rank 1 passes MPI_COMM_NULL, the job ends with a message that
 * names the call, the argument and the rank. Rank 0 would otherwise wait in the barrier. */
#include "mtest.h"

int main(int argc, char **argv) {
  int rank, value;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) MPI_Comm_rank(MPI_COMM_NULL, &value);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
