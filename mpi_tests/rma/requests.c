/* Request-based RMA inside MPI_Win_lock_all: MPI_Rput requests (MPI_Wait, MPI_Waitall) complete
 * locally, so the origin buffer can be reused at once, and the data is at the target after
 * MPI_Win_flush; an MPI_Rget request, once MPI_Wait or MPI_Test says it is done, has the data in
 * the origin buffer without a flush; MPI_Raccumulate(MPI_SUM) from every rank into rank 0 loses
 * nothing; MPI_Rget_accumulate(MPI_SUM) hands out each value 0..total-1 exactly once (in the
 * order of the requests on each rank) and MPI_Rget_accumulate(MPI_NO_OP) reads the total.
 * Completed requests are set to MPI_REQUEST_NULL. */
#include <stdlib.h>

#include "mtest.h"

#define K 4      /* ints each rank puts */
#define M 10     /* accumulate requests per rank */
#define N 64     /* ints in each window */
#define COUNT 40 /* Raccumulate counter on rank 0 */
#define FETCH 41 /* Rget_accumulate counter on rank 0 */

static int rank, size, left, right;
static MPI_Win win;
static int *mem;

static int value(int r, int i) { return r * 100 + i + 1; }

static void test_until_done(MPI_Request *req, const char *what) {
  int flag = 0;
  while (!flag) {
    int rc = MPI_Test(req, &flag, MPI_STATUS_IGNORE);
    MTEST_CHECK(rc == MPI_SUCCESS, "MPI_Test of %s failed (%d)", what, rc);
    if (rc != MPI_SUCCESS) return;
  }
  MTEST_CHECK(*req == MPI_REQUEST_NULL, "%s: MPI_Test left the request set", what);
}

/* Two MPI_Rput halves to my slot on the right, then an MPI_Rget of the whole slot. */
static void put_and_get(void) {
  int mine[K], got[K];
  MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  MPI_Status st[2];
  for (int i = 0; i < K; ++i) mine[i] = value(rank, i);
  MPI_Rput(mine, K / 2, MPI_INT, right, rank * K, K / 2, MPI_INT, win, &req[0]);
  MPI_Rput(mine + K / 2, K / 2, MPI_INT, right, rank * K + K / 2, K / 2, MPI_INT, win, &req[1]);
  MTEST_CHECK(MPI_Waitall(2, req, st) == MPI_SUCCESS, "MPI_Waitall failed");
  MTEST_CHECK(req[0] == MPI_REQUEST_NULL && req[1] == MPI_REQUEST_NULL,
              "MPI_Waitall left an MPI_Rput request set");
  for (int i = 0; i < K; ++i) mine[i] = -1; /* locally complete: the buffer is free */
  MPI_Win_flush(right, win);
  for (int i = 0; i < K; ++i) got[i] = -2;
  MPI_Rget(got, K, MPI_INT, right, rank * K, K, MPI_INT, win, &req[0]);
  MTEST_CHECK(MPI_Wait(&req[0], MPI_STATUS_IGNORE) == MPI_SUCCESS, "MPI_Wait of MPI_Rget failed");
  MTEST_CHECK(req[0] == MPI_REQUEST_NULL, "MPI_Wait left the MPI_Rget request set");
  for (int i = 0; i < K; ++i)
    MTEST_CHECK(got[i] == value(rank, i), "MPI_Rget after MPI_Rput + flush: int %d is %d, want %d",
                i, got[i], value(rank, i));
  /* A single MPI_Rput completed by MPI_Wait, then read back after MPI_Win_flush_all. */
  int one = value(rank, 99);
  MPI_Rput(&one, 1, MPI_INT, right, rank * K, 1, MPI_INT, win, &req[0]);
  MPI_Wait(&req[0], MPI_STATUS_IGNORE);
  one = -1;
  MPI_Win_flush_all(win);
  MPI_Rget(got, 1, MPI_INT, right, rank * K, 1, MPI_INT, win, &req[0]);
  test_until_done(&req[0], "MPI_Rget");
  MTEST_CHECK(got[0] == value(rank, 99), "MPI_Rget gave %d, want %d", got[0], value(rank, 99));
}

/* What left put into my window, checked in my memory after a barrier. */
static void check_mine(void) {
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_sync(win);
  int want[K] = {value(left, 99), value(left, 1), value(left, 2), value(left, 3)};
  for (int i = 0; i < K; ++i)
    MTEST_CHECK(mem[left * K + i] == want[i], "my slot for rank %d: int %d is %d, want %d", left, i,
                mem[left * K + i], want[i]);
}

/* MPI_Rget of rank 0's int `at`, once every rank's requests are flushed. */
static int read_counter(int at) {
  int got = -1;
  MPI_Request req;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Rget(&got, 1, MPI_INT, 0, at, 1, MPI_INT, win, &req);
  test_until_done(&req, "MPI_Rget of a counter");
  return got;
}

static void accumulate(void) {
  int add = rank + 1;
  MPI_Request req[M];
  MPI_Status st[M];
  for (int i = 0; i < M; ++i)
    MPI_Raccumulate(&add, 1, MPI_INT, 0, COUNT, 1, MPI_INT, MPI_SUM, win, &req[i]);
  MTEST_CHECK(MPI_Waitall(M, req, st) == MPI_SUCCESS, "MPI_Waitall failed");
  MPI_Win_flush(0, win);
  int got = read_counter(COUNT), want = M * size * (size + 1) / 2;
  MTEST_CHECK(got == want, "MPI_Raccumulate(MPI_SUM): the counter is %d, want %d", got, want);
}

static int compare_ints(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

static void get_accumulate(void) {
  int one = 1, fetched[M], total = M * size, increasing = 1;
  MPI_Request req[M];
  for (int i = 0; i < M; ++i)
    MPI_Rget_accumulate(&one, 1, MPI_INT, &fetched[i], 1, MPI_INT, 0, FETCH, 1, MPI_INT, MPI_SUM,
                        win, &req[i]);
  for (int i = 0; i < M; ++i) test_until_done(&req[i], "MPI_Rget_accumulate");
  for (int i = 1; i < M; ++i) increasing &= fetched[i] > fetched[i - 1];
  MTEST_CHECK(increasing, "MPI_Rget_accumulate: one rank's fetches are not in request order");
  int *all = malloc(total * sizeof(int)), wrong = 0;
  MPI_Allgather(fetched, M, MPI_INT, all, M, MPI_INT, MPI_COMM_WORLD);
  qsort(all, total, sizeof(int), compare_ints);
  for (int i = 0; i < total; ++i) wrong += all[i] != i;
  MTEST_CHECK(wrong == 0, "MPI_Rget_accumulate: %d of %d fetched values are not 0..%d once each",
              wrong, total, total - 1);
  free(all);
  MPI_Win_flush(0, win);
  MPI_Barrier(MPI_COMM_WORLD);
  int now = -1;
  MPI_Rget_accumulate(NULL, 0, MPI_INT, &now, 1, MPI_INT, 0, FETCH, 1, MPI_INT, MPI_NO_OP, win,
                      &req[0]);
  MPI_Wait(&req[0], MPI_STATUS_IGNORE);
  MTEST_CHECK(now == total, "MPI_Rget_accumulate(MPI_NO_OP) read %d, want %d", now, total);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size * K > COUNT) MPI_Abort(MPI_COMM_WORLD, 1); /* 10 ranks at most */
  left = (rank + size - 1) % size;
  right = (rank + 1) % size;
  MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  MPI_Win_lock_all(0, win);
  for (int i = 0; i < N; ++i) mem[i] = 0;
  MPI_Win_sync(win);
  MPI_Barrier(MPI_COMM_WORLD);
  put_and_get();
  check_mine();
  accumulate();
  get_accumulate();
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  return mtest_finalize();
}
