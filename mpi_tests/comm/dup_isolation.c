/* Messages on a duplicate never match receives on its parent (or on another duplicate), even
 * with the same source and tag, or with MPI_ANY_SOURCE / MPI_ANY_TAG. */
#include "mtest.h"

static MPI_Status
    statuses_[8]; /* MPI_STATUSES_IGNORE as an array argument upsets gcc -Wstringop-overflow */

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, result;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm dup1, dup2;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup1);
  MPI_Comm_dup(dup1, &dup2);
  MPI_Comm_compare(MPI_COMM_WORLD, dup1, &result);
  MTEST_CHECK(result == MPI_CONGRUENT, "compare(world, dup) = %d", result);
  MPI_Comm_compare(dup1, dup1, &result);
  MTEST_CHECK(result == MPI_IDENT, "compare(dup, dup) = %d", result);
  int dsize, drank;
  MPI_Comm_size(dup2, &dsize);
  MPI_Comm_rank(dup2, &drank);
  MTEST_CHECK(dsize == size && drank == rank, "dup: rank %d of %d", drank, dsize);

  /* Each rank sends to the next one on dup2, dup1, then world (same tag), and receives from
   * the previous one with wildcards in the opposite order: each receive must get the message
   * of its own communicator. */
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Comm comms[3] = {dup2, dup1, MPI_COMM_WORLD};
  int out[3], in[3] = {-1, -1, -1};
  MPI_Request reqs[6];
  for (int i = 0; i < 3; ++i) {
    out[i] = 100 * rank + i;
    MPI_Isend(&out[i], 1, MPI_INT, next, 7, comms[i], &reqs[i]);
  }
  for (int i = 2; i >= 0; --i)
    MPI_Irecv(&in[i], 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comms[i], &reqs[3 + i]);
  MPI_Waitall(6, reqs, statuses_);
  for (int i = 0; i < 3; ++i)
    MTEST_CHECK(in[i] == 100 * prev + i, "communicator %d got %d, want %d", i, in[i],
                100 * prev + i);

  MPI_Barrier(dup2);
  MPI_Comm_free(&dup2);
  MTEST_CHECK(dup2 == MPI_COMM_NULL, "freed handle is %#x, want MPI_COMM_NULL", (unsigned)dup2);
  MPI_Comm_free(&dup1);
  return mtest_finalize();
}
