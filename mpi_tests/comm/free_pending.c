/* MPI_Comm_free with operations pending on the communicator: they complete normally, and the
 * freed communicator's context is not given to a new one while a receive still waits on it. */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* 1. A large send (rendezvous) and its receive, both started, then the communicator freed
   *    on both sides before the wait. */
  enum { N = 1 << 20 };
  int *buf = malloc(N * sizeof(int));
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  int *out = malloc(N * sizeof(int));
  if (rank == 0) {
    for (int i = 0; i < N; ++i) out[i] = i;
    MPI_Isend(out, N, MPI_INT, size - 1, 5, comm, &reqs[0]);
  }
  if (rank == size - 1) {
    memset(buf, 0xff, N * sizeof(int));
    MPI_Irecv(buf, N, MPI_INT, 0, 5, comm, &reqs[1]);
  }
  MPI_Comm_free(&comm);
  MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
  MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
  if (rank == size - 1) {
    int bad = 0;
    for (int i = 0; i < N; ++i) bad += buf[i] != i;
    MTEST_CHECK(bad == 0, "%d of %d elements wrong after the free", bad, N);
  }

  /* 2. A receive that nothing matches, on a freed duplicate of MPI_COMM_SELF, and a new
   *    duplicate made afterwards: the new one's message must go to the new one's receive. */
  MPI_Comm old_self, new_self;
  int stale = -1, fresh = -1, value = 99, flag = 1;
  MPI_Comm_dup(MPI_COMM_SELF, &old_self);
  MPI_Request stale_req, fresh_req;
  MPI_Irecv(&stale, 1, MPI_INT, 0, 7, old_self, &stale_req);
  MPI_Comm_free(&old_self);
  MPI_Comm_dup(MPI_COMM_SELF, &new_self);
  MPI_Irecv(&fresh, 1, MPI_INT, 0, 7, new_self, &fresh_req);
  MPI_Send(&value, 1, MPI_INT, 0, 7, new_self);
  MPI_Wait(&fresh_req, MPI_STATUS_IGNORE);
  MTEST_CHECK(fresh == 99, "the new communicator's receive got %d", fresh);
  MPI_Test(&stale_req, &flag, MPI_STATUS_IGNORE);
  MTEST_CHECK(!flag && stale == -1, "the receive on the freed communicator matched (%d)", stale);
  MPI_Comm_free(&new_self);
  free(buf);
  free(out);
  return mtest_finalize();
}
