/* MPI_Barrier with the shared-memory algorithm (forced by the testlist): no rank leaves before
 * the last one has entered. One rank, a different one each round, enters 20 ms late; every
 * rank's exit time (MPI_Wtime, one clock on one host) must come after every entry time. Then
 * barriers on a dup'ed and a split communicator, and many back to back. */
#include <stdlib.h>

#include "mtest.h"

static void spin_for(double seconds) {
  double end = MPI_Wtime() + seconds;
  while (MPI_Wtime() < end) {
  }
}

static void check_order(MPI_Comm comm, int rounds) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  double *times = malloc(2 * size * sizeof(double));
  for (int round = 0; round < rounds; ++round) {
    if (rank == round % size) spin_for(0.02);
    double mine[2];
    mine[0] = MPI_Wtime();
    MPI_Barrier(comm);
    mine[1] = MPI_Wtime();
    MPI_Allgather(mine, 2, MPI_DOUBLE, times, 2, MPI_DOUBLE, comm);
    double last_in = times[0], first_out = times[1];
    for (int r = 1; r < size; ++r) {
      if (times[2 * r] > last_in) last_in = times[2 * r];
      if (times[2 * r + 1] < first_out) first_out = times[2 * r + 1];
    }
    MTEST_CHECK(first_out >= last_in, "round %d: a rank left at %.6f before the last entered at %.6f",
                round, first_out, last_in);
  }
  free(times);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  check_order(MPI_COMM_WORLD, 6);
  MPI_Comm dup, half;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half);
  check_order(dup, 3);
  check_order(half, 3);
  for (int i = 0; i < 1000; ++i) MPI_Barrier(i % 2 ? dup : half);
  MPI_Comm_free(&half);
  MPI_Comm_free(&dup);
  return mtest_finalize();
}
