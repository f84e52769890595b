/* An MPI call after MPI_Finalize is reported clearly, not a crash. */
#include "mtest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Finalize();
  MPI_Barrier(MPI_COMM_WORLD);
  return 0;
}
