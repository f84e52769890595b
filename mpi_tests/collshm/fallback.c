/* The shared-memory algorithms forced, with a segment no rank can create (the testlist asks
 * for an impossibly large slot): the first collective sets the segment up, every rank learns
 * that it failed, and that collective and every later one run with another algorithm, with
 * the right results and no hang. */
#include "mtest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int round = 0; round < 5; ++round) {
    long in = rank + round, out = -1;
    MPI_Allreduce(&in, &out, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    MTEST_CHECK(out == (long)size * (size - 1) / 2 + (long)size * round, "round %d: sum %ld", round,
                out);
    int value = rank == round % size ? 100 + round : -1;
    MPI_Bcast(&value, 1, MPI_INT, round % size, MPI_COMM_WORLD);
    MTEST_CHECK(value == 100 + round, "round %d: bcast %d", round, value);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  return mtest_finalize();
}
