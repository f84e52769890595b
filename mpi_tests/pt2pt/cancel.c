/* MPI_Cancel. A receive that nothing matches is cancelled: its wait completes and
 * MPI_Test_cancelled says true, and a later message goes to a later receive. A receive that
 * already matched (MPI_Request_get_status saw it complete) is not: it completes with its data.
 * A send still queued behind a full shared-memory ring (rank 1 cannot drain it: it stays
 * outside MPI until rank 0 is done) is cancelled and never arrives; a send that already left
 * is not cancelled and arrives. Cancelling a persistent receive, then restarting it, works. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mtest.h"

#define NQUEUED 64
#define QSIZE 16000 /* eager (the testlist sets a 16K limit): each takes a packet of the 64K ring */

static int cancelled(const MPI_Status *st) {
  int flag = -1;
  MPI_Test_cancelled(st, &flag);
  return flag;
}

static void cancel_receives(int rank) {
  int x = -1;
  MPI_Request req;
  MPI_Status st;
  if (rank == 0) {
    /* Nothing is ever sent with tag 1. */
    MPI_Irecv(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &req);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    MTEST_CHECK(cancelled(&st) == 1, "an unmatched receive was not cancelled");
    /* Tag 2 is sent once; the first receive is cancelled, the second gets it. */
    MPI_Irecv(&x, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &req);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    MTEST_CHECK(cancelled(&st) == 1 && x == -1, "the cancelled receive got data");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Recv(&x, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &st);
    MTEST_CHECK(x == 22 && cancelled(&st) == 0, "the message after the cancel: %d", x);
    /* Tag 3: matched before the cancel, so not cancelled. */
    int flag = 0;
    MPI_Irecv(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, &req);
    MPI_Barrier(MPI_COMM_WORLD);
    while (!flag) MPI_Request_get_status(req, &flag, MPI_STATUS_IGNORE);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    MTEST_CHECK(cancelled(&st) == 0 && x == 33, "a completed receive: cancelled %d, data %d",
                cancelled(&st), x);
  } else if (rank == 1) {
    int v = 22;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Send(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
    v = 33;
    MPI_Send(&v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
  }
}

/* Rank 1 stays outside MPI (so nothing drains rank 0's ring) until rank 0 creates a file,
 * whose path it sent first: a handshake that makes no MPI progress. */
static void outside_mpi_until(const char *path) {
  while (access(path, F_OK) != 0) sched_yield();
}

static void cancel_sends(int rank) {
  char dir[256] = "", go[300];
  if (rank == 0) {
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/gpurun-cancel-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    MTEST_CHECK(mkdtemp(dir) != NULL, "mkdtemp %s", dir);
    MPI_Send(dir, sizeof dir, MPI_CHAR, 1, 9, MPI_COMM_WORLD);
  } else if (rank == 1) {
    MPI_Recv(dir, sizeof dir, MPI_CHAR, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  snprintf(go, sizeof go, "%s/go", dir);
  if (rank == 0) {
    char *buf = calloc(NQUEUED, QSIZE); /* one message each: queued sends read theirs later */
    MPI_Request reqs[NQUEUED];
    MPI_Status st;
    for (int i = 0; i < NQUEUED; i++) {
      buf[i * QSIZE] = (char)i;
      MPI_Isend(buf + i * QSIZE, QSIZE, MPI_CHAR, 1, 10, MPI_COMM_WORLD, &reqs[i]);
    }
    /* The last cannot have left: the ring holds a few of these, and rank 1 is not polling. */
    MPI_Cancel(&reqs[NQUEUED - 1]);
    MPI_Wait(&reqs[NQUEUED - 1], &st);
    MTEST_CHECK(cancelled(&st) == 1, "a send still queued was not cancelled");
    FILE *f = fopen(go, "w");
    MTEST_CHECK(f != NULL, "cannot create %s", go);
    if (f) fclose(f);
    MPI_Waitall(NQUEUED - 1, reqs, MPI_STATUSES_IGNORE);
    /* The end marker, same tag: it must come right after message NQUEUED - 2. */
    buf[0] = (char)-1;
    MPI_Send(buf, QSIZE, MPI_CHAR, 1, 10, MPI_COMM_WORLD);
    /* A send that already left (rank 1 waits for it) is not cancelled. */
    int v = 44;
    MPI_Request req;
    MPI_Issend(&v, 1, MPI_INT, 1, 11, MPI_COMM_WORLD, &req);
    MPI_Recv(NULL, 0, MPI_INT, 1, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* rank 1 got it */
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    MTEST_CHECK(cancelled(&st) == 0, "a delivered send was cancelled");
    unlink(go);
    rmdir(dir);
    free(buf);
  } else if (rank == 1) {
    char *buf = malloc(QSIZE);
    outside_mpi_until(go);
    int n = 0;
    for (;; n++) {
      MPI_Recv(buf, QSIZE, MPI_CHAR, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (buf[0] == (char)-1) break;
      MTEST_CHECK(buf[0] == (char)n, "message %d has number %d", n, buf[0]);
    }
    MTEST_CHECK(n == NQUEUED - 1, "%d messages before the end marker, want %d", n, NQUEUED - 1);
    int v = 0;
    MPI_Recv(&v, 1, MPI_INT, 0, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(NULL, 0, MPI_INT, 0, 12, MPI_COMM_WORLD);
    MTEST_CHECK(v == 44, "the send that was not cancelled carried %d", v);
    free(buf);
  }
}

static void cancel_persistent(int rank) {
  int x = -1;
  MPI_Request req;
  MPI_Status st;
  if (rank == 0) {
    MPI_Recv_init(&x, 1, MPI_INT, 1, 20, MPI_COMM_WORLD, &req);
    MPI_Start(&req);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    MTEST_CHECK(cancelled(&st) == 1 && req != MPI_REQUEST_NULL, "persistent receive cancel");
    MPI_Start(&req);
    MPI_Send(NULL, 0, MPI_INT, 1, 21, MPI_COMM_WORLD); /* now rank 1 sends */
    MPI_Wait(&req, &st);
    MTEST_CHECK(cancelled(&st) == 0 && x == 55, "restarted persistent receive got %d", x);
    MPI_Request_free(&req);
  } else if (rank == 1) {
    int v = 55;
    MPI_Recv(NULL, 0, MPI_INT, 0, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&v, 1, MPI_INT, 0, 20, MPI_COMM_WORLD);
  }
  /* A request on MPI_PROC_NULL is complete: cancelling it does nothing. */
  MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req);
  MPI_Cancel(&req);
  MPI_Wait(&req, &st);
  MTEST_CHECK(cancelled(&st) == 0 && st.MPI_SOURCE == MPI_PROC_NULL, "proc-null cancel");
}

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  cancel_receives(rank);
  cancel_sends(rank);
  cancel_persistent(rank);
  return mtest_finalize();
}
