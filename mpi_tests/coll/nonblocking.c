/* Several nonblocking collectives in flight at once, on MPI_COMM_WORLD and on a duplicate,
 * overlapped with point-to-point traffic on both: each completes with its own data (their
 * messages never mix), whatever order they are completed in (MPI_Waitall, MPI_Waitany in
 * reverse, MPI_Test loops), and a pending collective does not keep point-to-point messages
 * from completing. */
#include <stdlib.h>

#include "mtest.h"

#define N 4096 /* ints: large enough for rendezvous transfers on shared memory */

static int rank, size;

static void round_of(int round, MPI_Comm dup) {
  int *a = malloc(sizeof(int) * N), *ar = malloc(sizeof(int) * N);
  int *b = malloc(sizeof(int) * N * size), *c = malloc(sizeof(int) * N);
  int *d = malloc(sizeof(int) * N), *dr = malloc(sizeof(int) * N);
  int *ping = malloc(sizeof(int) * N), *pong = malloc(sizeof(int) * N);
  for (int i = 0; i < N; ++i) {
    a[i] = rank + i;
    c[i] = rank == 0 ? round * 7 + i : -1;
    d[i] = rank * 2 + round;
    ping[i] = rank * 1000 + round + i;
  }
  MPI_Request req[7];
  int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  MPI_Iallreduce(a, ar, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[0]);
  MPI_Irecv(pong, N, MPI_INT, left, 5, MPI_COMM_WORLD, &req[1]);
  MPI_Iallgather(a, N, MPI_INT, b, N, MPI_INT, dup, &req[2]);
  MPI_Ibcast(c, N, MPI_INT, 0, MPI_COMM_WORLD, &req[3]);
  MPI_Isend(ping, N, MPI_INT, right, 5, MPI_COMM_WORLD, &req[4]);
  MPI_Iallreduce(d, dr, N, MPI_INT, MPI_MAX, dup, &req[5]);
  MPI_Ibarrier(MPI_COMM_WORLD, &req[6]);
  if (round % 3 == 0) {
    MPI_Status st[7];
    MPI_Waitall(7, req, st);
  } else if (round % 3 == 1) {
    /* The point-to-point pair completes while the collectives may still be pending. */
    MPI_Wait(&req[4], MPI_STATUS_IGNORE);
    MPI_Wait(&req[1], MPI_STATUS_IGNORE);
    for (int left_over = 5; left_over > 0; --left_over) {
      int index;
      MPI_Waitany(7, req, &index, MPI_STATUS_IGNORE);
      MTEST_CHECK(index != MPI_UNDEFINED, "Waitany found nothing with %d pending", left_over);
    }
  } else {
    int done = 0;
    MPI_Status st[7];
    while (!done) MPI_Testall(7, req, &done, st);
  }
  for (int i = 0; i < N; ++i) {
    int sum = 0, max = 0;
    for (int q = 0; q < size; ++q) {
      sum += q + i;
      if (q * 2 + round > max) max = q * 2 + round;
    }
    int ok =
        ar[i] == sum && c[i] == round * 7 + i && dr[i] == max && pong[i] == left * 1000 + round + i;
    for (int q = 0; q < size; ++q) ok = ok && b[q * N + i] == q + i;
    if (!ok) {
      MTEST_CHECK(0, "round %d element %d: allreduce %d/%d bcast %d max %d/%d pong %d", round, i,
                  ar[i], sum, c[i], dr[i], max, pong[i]);
      break;
    }
  }
  free(a), free(ar), free(b), free(c), free(d), free(dr), free(ping), free(pong);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  for (int round = 0; round < 9; ++round) round_of(round, dup);
  /* A request freed before it completes still completes (and frees itself). */
  int x = rank, y = -1;
  MPI_Request req;
  MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
  MPI_Request_free(&req);
  MTEST_CHECK(req == MPI_REQUEST_NULL, "Request_free left the handle");
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MTEST_CHECK(x == size * (size - 1) / 2, "allreduce after a freed one: %d", x);
  MPI_Comm_free(&dup);
  return mtest_finalize();
}
