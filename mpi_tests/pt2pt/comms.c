/* Point-to-point on communicators other than MPI_COMM_WORLD. Messages on a duplicate never
 * match receives on the original (each communicator is its own matching space), whatever the
 * order; within a split communicator ranks, MPI_ANY_SOURCE statuses, probes and persistent
 * requests are in its own numbering; errors go through the handler of the communicator they
 * happen on (a duplicate set to MPI_ERRORS_RETURN returns them while MPI_COMM_WORLD stays
 * fatal), request errors included; a freed communicator is MPI_ERR_COMM. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static int error_class(int code) {
  int c = -1;
  MPI_Error_class(code, &c);
  return c;
}

static void duplicate_is_separate(int rank, MPI_Comm dup) {
  /* Rank 0 sends on dup first, then on world, same tag; rank 1 receives world first (with
   * MPI_ANY_SOURCE: the message on the duplicate comes first and must not match). */
  const int n[2] = {10, 50000}; /* eager and rendezvous */
  for (int k = 0; k < 2; k++) {
    int *buf = malloc(n[k] * sizeof(int));
    if (rank == 0) {
      for (int i = 0; i < n[k]; i++) buf[i] = 1000 + i;
      MPI_Request r;
      MPI_Isend(buf, n[k], MPI_INT, 1, 5 + k, dup, &r);
      int *w = malloc(n[k] * sizeof(int));
      for (int i = 0; i < n[k]; i++) w[i] = 2000 + i;
      MPI_Send(w, n[k], MPI_INT, 1, 5 + k, MPI_COMM_WORLD);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      free(w);
    } else if (rank == 1) {
      MPI_Status st;
      int flag = 0;
      MPI_Recv(buf, n[k], MPI_INT, MPI_ANY_SOURCE, 5 + k, MPI_COMM_WORLD, &st);
      MTEST_CHECK(buf[0] == 2000 && buf[n[k] - 1] == 2000 + n[k] - 1,
                  "world receive got %d: the message on the duplicate matched it", buf[0]);
      /* Rank 0 may already have sent the next round's world message: a tag per round. */
      MPI_Iprobe(MPI_ANY_SOURCE, 5 + k, MPI_COMM_WORLD, &flag, &st);
      MTEST_CHECK(!flag, "a probe on world found a message from %d, tag %d", st.MPI_SOURCE,
                  st.MPI_TAG);
      MPI_Recv(buf, n[k], MPI_INT, 0, 5 + k, dup, &st);
      MTEST_CHECK(buf[0] == 1000 && buf[n[k] - 1] == 1000 + n[k] - 1, "duplicate got %d", buf[0]);
    }
    free(buf);
  }
}

static void split_numbering(int rank, int size) {
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half); /* reversed order within each half */
  int hr, hs;
  MPI_Comm_rank(half, &hr);
  MPI_Comm_size(half, &hs);
  MTEST_CHECK(hs == (size + 1 - rank % 2) / 2, "half size %d", hs);
  int right = (hr + 1) % hs, left = (hr + hs - 1) % hs, got = -1;
  MPI_Status st;
  MPI_Sendrecv(&rank, 1, MPI_INT, right, 7, &got, 1, MPI_INT, MPI_ANY_SOURCE, 7, half, &st);
  /* The left neighbour in half is the world rank two above (reversed order), cyclically. */
  int want = -1;
  for (int w = rank % 2; w < size; w += 2) {
    int r;
    /* world rank w has half rank (count of same-parity ranks above it) */
    r = 0;
    for (int v = w + 2; v < size; v += 2) r++;
    if (r == left) want = w;
  }
  MTEST_CHECK(got == want && st.MPI_SOURCE == left, "split ring: got %d from %d, want %d from %d",
              got, st.MPI_SOURCE, want, left);
  /* Persistent requests and probes in the split communicator. */
  MPI_Request reqs[2];
  int out = hr * 10, in = -1;
  MPI_Recv_init(&in, 1, MPI_INT, left, 8, half, &reqs[0]);
  MPI_Send_init(&out, 1, MPI_INT, right, 8, half, &reqs[1]);
  for (int round = 0; round < 5; round++) {
    out = hr * 10 + round;
    MPI_Startall(2, reqs);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    MTEST_CHECK(in == left * 10 + round, "persistent on split: %d", in);
  }
  MPI_Request_free(&reqs[0]);
  MPI_Request_free(&reqs[1]);
  MPI_Message msg;
  MPI_Send(&hr, 1, MPI_INT, right, 9, half);
  MPI_Mprobe(MPI_ANY_SOURCE, 9, half, &msg, &st);
  MTEST_CHECK(st.MPI_SOURCE == left, "Mprobe on split: source %d, want %d", st.MPI_SOURCE, left);
  MPI_Mrecv(&in, 1, MPI_INT, &msg, &st);
  MTEST_CHECK(in == left, "Mrecv on split got %d", in);
  MPI_Comm_free(&half);
}

static void handlers_and_freed(int rank, int size) {
  MPI_Comm dup, stale;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN); /* world stays MPI_ERRORS_ARE_FATAL */
  int x = 0, rc = MPI_Send(&x, 1, MPI_INT, size, 0, dup);
  MTEST_CHECK(error_class(rc) == MPI_ERR_RANK, "bad rank on the duplicate: class %d",
              error_class(rc));
  /* A truncated receive on the duplicate: the request's error goes to its handler too. */
  if (rank == 0) {
    int two[2] = {1, 2};
    MPI_Send(two, 2, MPI_INT, 1, 3, dup);
  } else if (rank == 1) {
    MPI_Request r;
    MPI_Status st;
    MPI_Irecv(&x, 1, MPI_INT, 0, 3, dup, &r);
    rc = MPI_Wait(&r, &st);
    MTEST_CHECK(error_class(rc) == MPI_ERR_TRUNCATE, "truncation on the duplicate: class %d",
                error_class(rc));
  }
  stale = dup;
  MPI_Comm_free(&dup);
  /* The freed handle names nothing: world's handler (set to return here) reports it. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  rc = MPI_Send(&x, 1, MPI_INT, 0, 0, stale);
  char text[MPI_MAX_ERROR_STRING];
  int len;
  MPI_Error_string(rc, text, &len);
  MTEST_CHECK(error_class(rc) == MPI_ERR_COMM && strstr(text, "MPI_Send") && strstr(text, "comm"),
              "send on a freed communicator: class %d '%s'", error_class(rc), text);
  MPI_Request r;
  rc = MPI_Irecv(&x, 1, MPI_INT, 0, 0, stale, &r);
  MTEST_CHECK(error_class(rc) == MPI_ERR_COMM, "receive on a freed communicator: %d",
              error_class(rc));
  rc = MPI_Iprobe(0, 0, stale, &len, MPI_STATUS_IGNORE);
  MTEST_CHECK(error_class(rc) == MPI_ERR_COMM, "probe on a freed communicator: %d",
              error_class(rc));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  duplicate_is_separate(rank, dup);
  MPI_Comm_free(&dup);
  split_numbering(rank, size);
  handlers_and_freed(rank, size);
  return mtest_finalize();
}
