/* Under the default handler, a call of a feature gpurun does not implement ends the job with
 * one line that names the call, the feature and the rank (the testlist's expect=). */
#include "mtest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) MPI_Publish_name("service", MPI_INFO_NULL, "port");
  MPI_Barrier(MPI_COMM_WORLD);
  return mtest_finalize();
}
