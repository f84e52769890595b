/* Persistent requests reused many times: a ring exchange of Send_init/Recv_init pairs started
 * with MPI_Startall and completed with MPI_Waitall 100 times, small (eager) and large
 * (rendezvous) at once, the data changing every round; MPI_Ssend_init, MPI_Rsend_init (the
 * receive is known to be posted: the receiver says so first) and MPI_Bsend_init restarted with
 * MPI_Start; completed persistent requests stay allocated (the handle is kept), an inactive one
 * completes at once with an empty status, MPI_Request_get_status leaves it alone, and
 * MPI_Request_free frees it. Requests on MPI_PROC_NULL complete at once with its status. */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define ROUNDS 100
#define SMALL 64
#define LARGE 100000

static int value(int rank, int round, int i) { return rank * 1000003 + round * 7919 + i; }

static void ring(int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int *sbuf[2], *rbuf[2];
  const int n[2] = {SMALL, LARGE};
  MPI_Request reqs[4];
  for (int k = 0; k < 2; k++) {
    sbuf[k] = malloc(n[k] * sizeof(int));
    rbuf[k] = malloc(n[k] * sizeof(int));
    MPI_Recv_init(rbuf[k], n[k], MPI_INT, left, k, MPI_COMM_WORLD, &reqs[2 * k]);
    MPI_Send_init(sbuf[k], n[k], MPI_INT, right, k, MPI_COMM_WORLD, &reqs[2 * k + 1]);
  }
  MPI_Request kept[4];
  memcpy(kept, reqs, sizeof kept);
  for (int round = 0; round < ROUNDS; round++) {
    for (int k = 0; k < 2; k++)
      for (int i = 0; i < n[k]; i++) sbuf[k][i] = value(rank, round, i + k);
    MPI_Startall(4, reqs);
    MPI_Status sts[4];
    MPI_Waitall(4, reqs, sts);
    int bad = 0;
    for (int k = 0; k < 2; k++) {
      int count = -1;
      MPI_Get_count(&sts[2 * k], MPI_INT, &count);
      bad |= count != n[k] || sts[2 * k].MPI_SOURCE != left || sts[2 * k].MPI_TAG != k;
      for (int i = 0; i < n[k]; i++) bad |= rbuf[k][i] != value(left, round, i + k);
    }
    MTEST_CHECK(!bad, "round %d: wrong data or status from %d", round, left);
    MTEST_CHECK(memcmp(kept, reqs, sizeof kept) == 0,
                "round %d: MPI_Waitall changed a persistent handle", round);
    if (bad) break;
  }
  for (int k = 0; k < 4; k++) MPI_Request_free(&reqs[k]);
  MTEST_CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[3] == MPI_REQUEST_NULL, "MPI_Request_free");
  for (int k = 0; k < 2; k++) {
    free(sbuf[k]);
    free(rbuf[k]);
  }
}

/* Rank 0 sends to rank 1 with each kind of persistent send, ROUNDS times. */
static void send_kinds(int rank) {
  int data[LARGE / 10];
  const int n = LARGE / 10;
  MPI_Request req;
  if (rank == 0) {
    int bsize = (int)(n * sizeof(int)) + MPI_BSEND_OVERHEAD;
    void *bbuf = malloc(bsize);
    MPI_Buffer_attach(bbuf, bsize);
    for (int kind = 0; kind < 3; kind++) {
      if (kind == 0) MPI_Ssend_init(data, n, MPI_INT, 1, 10, MPI_COMM_WORLD, &req);
      if (kind == 1) MPI_Rsend_init(data, n, MPI_INT, 1, 11, MPI_COMM_WORLD, &req);
      if (kind == 2) MPI_Bsend_init(data, n, MPI_INT, 1, 12, MPI_COMM_WORLD, &req);
      for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < n; i++) data[i] = value(kind, round, i);
        /* The receive is posted once this arrives (Rsend needs it; for Bsend it also means the
         * previous message left the attached buffer, which holds one). */
        if (kind >= 1) MPI_Recv(NULL, 0, MPI_INT, 1, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        MTEST_CHECK(req != MPI_REQUEST_NULL, "MPI_Wait freed a persistent request");
      }
      MPI_Request_free(&req);
    }
    int size = 0;
    void *back = NULL;
    MPI_Buffer_detach(&back, &size);
    MTEST_CHECK(back == bbuf && size == bsize, "MPI_Buffer_detach gave %p/%d", back, size);
    free(bbuf);
  } else if (rank == 1) {
    for (int kind = 0; kind < 3; kind++) {
      MPI_Recv_init(data, n, MPI_INT, 0, 10 + kind, MPI_COMM_WORLD, &req);
      for (int round = 0; round < ROUNDS; round++) {
        MPI_Start(&req);
        if (kind >= 1) MPI_Send(NULL, 0, MPI_INT, 0, 20, MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        int bad = 0;
        for (int i = 0; i < n; i++) bad |= data[i] != value(kind, round, i);
        MTEST_CHECK(!bad, "kind %d round %d: wrong data", kind, round);
      }
      MPI_Request_free(&req);
    }
  }
}

static void inactive_and_proc_null(int rank) {
  int x = 5, y = 0, flag = 0, count = -1;
  MPI_Request reqs[2];
  MPI_Status st;
  MPI_Send_init(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &reqs[0]);
  MPI_Recv_init(&y, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &reqs[1]);
  /* Not started: inactive, so waiting returns at once with an empty status. */
  st.MPI_SOURCE = 77;
  MPI_Wait(&reqs[1], &st);
  MPI_Get_count(&st, MPI_INT, &count);
  MTEST_CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG && count == 0,
              "inactive request status %d/%d/%d", st.MPI_SOURCE, st.MPI_TAG, count);
  MPI_Request_get_status(reqs[0], &flag, &st);
  MTEST_CHECK(flag, "MPI_Request_get_status of an inactive request");
  for (int round = 0; round < 3; round++) {
    MPI_Startall(2, reqs);
    MPI_Request_get_status(reqs[1], &flag, &st);
    MTEST_CHECK(flag && st.MPI_SOURCE == MPI_PROC_NULL, "proc-null receive: flag %d source %d",
                flag, st.MPI_SOURCE);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    MTEST_CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[1] != MPI_REQUEST_NULL, "handles kept");
  }
  MTEST_CHECK(y == 0, "a proc-null receive wrote the buffer");
  MPI_Request_free(&reqs[0]);
  MPI_Request_free(&reqs[1]);
  (void)rank;
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ring(rank, size);
  send_kinds(rank);
  inactive_and_proc_null(rank);
  return mtest_finalize();
}
