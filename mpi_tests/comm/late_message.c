/* A message that an erroneous program sends on a communicator its receiver has already freed,
 * and never receives, must not reach a later communicator: rank 1 frees `a`, then rank 0 sends
 * on `a` and frees it, then both create `b` (the ids they free rest before they are used
 * again, and the late message is dropped). Nothing may be waiting on `b` then. */
#include "mtest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int round = 0; round < 3 && size >= 2; ++round) {
    MPI_Comm a, b;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    if (rank == 1) MPI_Comm_free(&a);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      int v = 42;
      MPI_Send(&v, 1, MPI_INT, 1, 7, a); /* eager: rank 1 never receives it */
    }
    if (rank != 1) MPI_Comm_free(&a);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
    MPI_Barrier(b);
    int flag = 1;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, b, &flag, &st);
    MTEST_CHECK(!flag,
                "round %d: a message (tag %d from rank %d) of a freed communicator "
                "reached a new one",
                round, st.MPI_TAG, st.MPI_SOURCE);
    MPI_Comm_free(&b);
  }
  return mtest_finalize();
}
