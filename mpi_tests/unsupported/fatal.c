/* Under the default handler, a call of a feature gpurun does not implement ends the job with
 * one line that names the call, the feature and the rank (the testlist's expect=). */
#include "mtest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, value = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Win win = MPI_WIN_NULL;
  if (rank == 1) MPI_Win_create(&value, sizeof value, 1, MPI_INFO_NULL, MPI_COMM_SELF, &win);
  MPI_Barrier(MPI_COMM_WORLD);
  return mtest_finalize();
}
