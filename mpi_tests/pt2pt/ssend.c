/* Synchronous sends complete only once the receive has matched. Rank 0 starts an MPI_Issend
 * before rank 1 can have posted its receive (rank 1 posts only after a barrier that rank 0
 * reaches after its tests), so MPI_Test must say false; after the barrier rank 1 receives and
 * the send completes. Eager (0, 100 bytes, 16K) and rendezvous (1 MiB) sizes; then blocking
 * MPI_Ssend both ways, and a synchronous send to self. */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static const int kSizes[] = {0, 100, 16384, 1 << 20};
#define NSIZES ((int)(sizeof kSizes / sizeof kSizes[0]))

static void fill(char *buf, int n, int salt) {
  for (int i = 0; i < n; i++) buf[i] = (char)(i * 3 + salt);
}
static int same(const char *buf, int n, int salt) {
  for (int i = 0; i < n; i++)
    if (buf[i] != (char)(i * 3 + salt)) return 0;
  return 1;
}

static void issend_waits_for_match(int rank, char *buf) {
  for (int k = 0; k < NSIZES; k++) {
    int n = kSizes[k];
    if (rank == 0) {
      MPI_Request req;
      int flag = 0;
      fill(buf, n, k);
      MPI_Issend(buf, n, MPI_CHAR, 1, k, MPI_COMM_WORLD, &req);
      for (int i = 0; i < 100; i++) {
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        if (flag) break;
      }
      MTEST_CHECK(!flag, "MPI_Issend of %d bytes completed before the receive was posted", n);
      MPI_Barrier(MPI_COMM_WORLD);
      if (!flag) MPI_Wait(&req, MPI_STATUS_IGNORE);
      MTEST_CHECK(req == MPI_REQUEST_NULL, "request not freed");
    } else if (rank == 1) {
      MPI_Status st;
      int count = -1;
      MPI_Barrier(MPI_COMM_WORLD);
      memset(buf, 0, n + 1);
      MPI_Recv(buf, n, MPI_CHAR, 0, k, MPI_COMM_WORLD, &st);
      MPI_Get_count(&st, MPI_CHAR, &count);
      MTEST_CHECK(count == n && same(buf, n, k), "%d bytes received, want %d", count, n);
    } else {
      MPI_Barrier(MPI_COMM_WORLD);
    }
  }
}

/* A standard send of an eager size is complete at once: the contrast to the test above. */
static void standard_send_does_not_wait(int rank, char *buf) {
  if (rank == 0) {
    MPI_Request req;
    int flag = 0;
    MPI_Isend(buf, 100, MPI_CHAR, 1, 50, MPI_COMM_WORLD, &req);
    for (int i = 0; i < 1000 && !flag; i++) MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    MTEST_CHECK(flag, "an eager MPI_Isend did not complete without a receive");
    if (!flag) MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) MPI_Recv(buf, 100, MPI_CHAR, 0, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

static void blocking_ssend(int rank, int size, char *buf) {
  for (int k = 0; k < NSIZES; k++) {
    int n = kSizes[k];
    int peer = rank ^ 1;
    if (peer >= size) continue;
    /* The lower rank sends first, then receives; the other the opposite. */
    for (int turn = 0; turn < 2; turn++) {
      if ((turn == 0) == (rank < peer)) {
        fill(buf, n, rank + k);
        MPI_Ssend(buf, n, MPI_CHAR, peer, 60 + k, MPI_COMM_WORLD);
      } else {
        MPI_Status st;
        MPI_Recv(buf, n, MPI_CHAR, peer, 60 + k, MPI_COMM_WORLD, &st);
        MTEST_CHECK(same(buf, n, peer + k), "MPI_Ssend data of %d bytes from %d", n, peer);
      }
    }
  }
}

static void ssend_to_self(int rank, char *buf) {
  for (int k = 0; k < NSIZES; k++) {
    int n = kSizes[k];
    char *in = malloc(n + 1);
    MPI_Request req;
    MPI_Irecv(in, n, MPI_CHAR, rank, 70, MPI_COMM_WORLD, &req);
    fill(buf, n, 9);
    MPI_Ssend(buf, n, MPI_CHAR, rank, 70, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MTEST_CHECK(same(in, n, 9), "self MPI_Ssend of %d bytes", n);
    free(in);
  }
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char *buf = malloc((1 << 20) + 1);
  issend_waits_for_match(rank, buf);
  standard_send_does_not_wait(rank, buf);
  blocking_ssend(rank, size, buf);
  ssend_to_self(rank, buf);
  free(buf);
  return mtest_finalize();
}
