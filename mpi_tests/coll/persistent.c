/* The persistent collectives (MPI-4 *_init): each is made once and started three times with new
 * data in its buffers; several are started at once with MPI_Startall and completed in any
 * order; the datatype may be freed after the _init call; a request freed while active still
 * completes; an inactive one is freed; starting an active one is an error. */
#include <stdlib.h>

#include "mtest.h"

#define N 1000
#define ROUNDS 3

static int rank, size;

static void check_ints(const char *what, int round, const int *got, const int *want, int n) {
  for (int i = 0; i < n; ++i) {
    if (got[i] != want[i]) {
      MTEST_CHECK(0, "%s round %d: [%d] = %d, expected %d", what, round, i, got[i], want[i]);
      return;
    }
  }
}

static void every_collective(void) {
  int *s = malloc(sizeof(int) * N * size), *r = malloc(sizeof(int) * N * size);
  int *want = malloc(sizeof(int) * N * size), *counts = malloc(sizeof(int) * size);
  int *displs = malloc(sizeof(int) * size);
  for (int i = 0; i < size; ++i) counts[i] = N, displs[i] = i * N;
  MPI_Comm w = MPI_COMM_WORLD;
  MPI_Info info = MPI_INFO_NULL;
  MPI_Request req[16];
  int root = size - 1;
  MPI_Barrier_init(w, info, &req[0]);
  MPI_Bcast_init(r, N, MPI_INT, root, w, info, &req[1]);
  MPI_Allreduce_init(s, r, N, MPI_INT, MPI_SUM, w, info, &req[2]);
  MPI_Reduce_init(s, r, N, MPI_INT, MPI_SUM, root, w, info, &req[3]);
  MPI_Scan_init(s, r, N, MPI_INT, MPI_SUM, w, info, &req[4]);
  MPI_Exscan_init(s, r, N, MPI_INT, MPI_SUM, w, info, &req[5]);
  MPI_Reduce_scatter_block_init(s, r, N, MPI_INT, MPI_SUM, w, info, &req[6]);
  MPI_Reduce_scatter_init(s, r, counts, MPI_INT, MPI_SUM, w, info, &req[7]);
  MPI_Gather_init(s, N, MPI_INT, r, N, MPI_INT, root, w, info, &req[8]);
  MPI_Gatherv_init(s, N, MPI_INT, r, counts, displs, MPI_INT, root, w, info, &req[9]);
  MPI_Scatter_init(s, N, MPI_INT, r, N, MPI_INT, root, w, info, &req[10]);
  MPI_Scatterv_init(s, counts, displs, MPI_INT, r, N, MPI_INT, root, w, info, &req[11]);
  MPI_Allgather_init(s, N, MPI_INT, r, N, MPI_INT, w, info, &req[12]);
  MPI_Allgatherv_init(s, N, MPI_INT, r, counts, displs, MPI_INT, w, info, &req[13]);
  MPI_Alltoall_init(s, N, MPI_INT, r, N, MPI_INT, w, info, &req[14]);
  MPI_Alltoallv_init(s, counts, displs, MPI_INT, r, counts, displs, MPI_INT, w, info, &req[15]);
  const char *names[16] = {"barrier",
                           "bcast",
                           "allreduce",
                           "reduce",
                           "scan",
                           "exscan",
                           "reduce_scatter_block",
                           "reduce_scatter",
                           "gather",
                           "gatherv",
                           "scatter",
                           "scatterv",
                           "allgather",
                           "allgatherv",
                           "alltoall",
                           "alltoallv"};
  for (int round = 0; round < ROUNDS; ++round) {
    for (int c = 0; c < 16; ++c) {
      /* s: rank, round and position; every collective's expected result from it. */
      for (int i = 0; i < N * size; ++i) s[i] = rank * 100 + round * 10 + i, r[i] = -1;
      if (c == 1 && rank == root)
        for (int i = 0; i < N; ++i) r[i] = round + i;
      MTEST_CHECK(MPI_Start(&req[c]) == MPI_SUCCESS, "%s start", names[c]);
      MTEST_CHECK(MPI_Wait(&req[c], MPI_STATUS_IGNORE) == MPI_SUCCESS, "%s wait", names[c]);
      MTEST_CHECK(req[c] != MPI_REQUEST_NULL, "%s: the wait freed a persistent request", names[c]);
      int n = N, lo = 0, hi = size - 1, first = 0;
      for (int i = 0; i < N * size; ++i) want[i] = -1;
      switch (c) {
        case 1:
          for (int i = 0; i < N; ++i) want[i] = round + i;
          break;
        case 3:
          if (rank != root) {
            n = 0;
            break;
          } /* fall through */
        case 2:
        case 4:
        case 5:
        case 6:
        case 7:
          if (c == 4) hi = rank;
          if (c == 5) hi = rank - 1;
          if (c == 6 || c == 7) first = rank * N;
          for (int i = 0; i < N && hi >= lo; ++i) {
            want[i] = 0;
            for (int q = lo; q <= hi; ++q) want[i] += q * 100 + round * 10 + first + i;
          }
          break;
        case 8:
        case 9:
          if (rank != root) {
            n = 0;
            break;
          } /* fall through */
        case 12:
        case 13:
          n = N * size;
          for (int q = 0; q < size; ++q)
            for (int i = 0; i < N; ++i) want[q * N + i] = q * 100 + round * 10 + i;
          break;
        case 10:
        case 11:
          for (int i = 0; i < N; ++i) want[i] = root * 100 + round * 10 + rank * N + i;
          break;
        case 14:
        case 15:
          n = N * size;
          for (int q = 0; q < size; ++q)
            for (int i = 0; i < N; ++i) want[q * N + i] = q * 100 + round * 10 + rank * N + i;
          break;
        default:
          n = 0;
      }
      check_ints(names[c], round, r, want, n);
    }
  }
  for (int c = 0; c < 16; ++c) {
    MPI_Request_free(&req[c]);
    MTEST_CHECK(req[c] == MPI_REQUEST_NULL, "Request_free left %s's handle", names[c]);
  }
  free(s), free(r), free(want), free(counts), free(displs);
}

/* Three allreduces on distinct buffers started together, completed in reverse. */
static void startall(void) {
  int a[3][N], b[3][N];
  MPI_Request req[3];
  MPI_Datatype mine;
  MPI_Type_contiguous(1, MPI_INT, &mine);
  MPI_Type_commit(&mine);
  for (int k = 0; k < 3; ++k)
    MPI_Allreduce_init(a[k], b[k], N, k == 1 ? mine : MPI_INT, k == 2 ? MPI_MAX : MPI_SUM,
                       MPI_COMM_WORLD, MPI_INFO_NULL, &req[k]);
  MPI_Type_free(&mine); /* the persistent operation keeps the type */
  for (int round = 0; round < ROUNDS; ++round) {
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < N; ++i) a[k][i] = rank + k + round + i;
    MTEST_CHECK(MPI_Startall(3, req) == MPI_SUCCESS, "startall");
    int err = MPI_Start(&req[0]);
    int cls;
    MPI_Error_class(err, &cls);
    MTEST_CHECK(cls == MPI_ERR_REQUEST, "starting an active request: class %d", cls);
    for (int k = 2; k >= 0; --k) MPI_Wait(&req[k], MPI_STATUS_IGNORE);
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < N; ++i) {
        int sum = 0;
        for (int q = 0; q < size; ++q) sum += q + k + round + i;
        int expect = k == 2 ? size - 1 + k + round + i : sum;
        if (b[k][i] != expect) {
          MTEST_CHECK(0, "startall round %d op %d [%d] = %d, expected %d", round, k, i, b[k][i],
                      expect);
          break;
        }
      }
  }
  /* Freed while active: it completes on its own; the next collective still matches. */
  MPI_Start(&req[0]);
  MPI_Request_free(&req[0]);
  MPI_Request_free(&req[1]);
  MPI_Request_free(&req[2]);
  int x = 1;
  MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MTEST_CHECK(x == size, "allreduce after freed persistent requests: %d", x);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  every_collective();
  startall();
  return mtest_finalize();
}
