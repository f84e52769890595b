/* An MPI call before MPI_Init is reported clearly, not a crash. */
#include "mtest.h"

int main(void) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return 0;
}
