/* Buffered sends. MPI_Bsend returns before the receive is posted (rank 1 posts only after a
 * barrier that rank 0 reaches after sending); a buffer sized as the standard says (the message
 * bytes plus MPI_BSEND_OVERHEAD per message) holds exactly that many messages in flight, and one
 * more gives MPI_ERR_BUFFER; so does MPI_Bsend with no buffer attached, and attaching twice;
 * MPI_Buffer_detach waits for the messages in flight and gives the buffer back; its space is
 * reused after the messages go; MPI_Ibsend completes at once; the _c forms work alike. */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define N 3
/* Above every transport's eager limit (ucx: 64K): rendezvous, so they wait for a receive. */
static const int kSizes[N] = {100000, 70000, 131072};
#define MAX_SIZE 131072

static int error_class(int code) {
  int c = -1;
  MPI_Error_class(code, &c);
  return c;
}

static void fill(char *buf, int n, int salt) {
  for (int i = 0; i < n; i++) buf[i] = (char)(i * 5 + salt);
}

static void exact_fit(int rank) {
  char *data = malloc(MAX_SIZE);
  if (rank == 0) {
    int bsize = 0;
    for (int i = 0; i < N; i++) bsize += kSizes[i] + MPI_BSEND_OVERHEAD;
    char *bbuf = malloc(bsize);
    MPI_Buffer_attach(bbuf, bsize);
    for (int i = 0; i < N; i++) {
      fill(data, kSizes[i], i);
      int rc = MPI_Bsend(data, kSizes[i], MPI_CHAR, 1, i, MPI_COMM_WORLD);
      MTEST_CHECK(rc == MPI_SUCCESS, "MPI_Bsend %d of a buffer sized for %d: %d", i, N, rc);
    }
    memset(data, 0, MAX_SIZE); /* the messages were copied: the user buffer is free again */
    int rc = MPI_Bsend(data, 0, MPI_CHAR, 1, 9, MPI_COMM_WORLD);
    MTEST_CHECK(error_class(rc) == MPI_ERR_BUFFER, "a message past the buffer: class %d",
                error_class(rc));
    rc = MPI_Buffer_attach(data, 1000);
    MTEST_CHECK(error_class(rc) == MPI_ERR_BUFFER, "a second MPI_Buffer_attach: class %d",
                error_class(rc));
    MPI_Barrier(MPI_COMM_WORLD);
    void *back = NULL;
    int size = 0;
    MPI_Buffer_detach(&back, &size); /* waits for rank 1 to receive all three */
    MTEST_CHECK(back == bbuf && size == bsize, "detach gave %p/%d, want %p/%d", back, size,
                (void *)bbuf, bsize);
    rc = MPI_Bsend(data, 1, MPI_CHAR, 1, 9, MPI_COMM_WORLD);
    MTEST_CHECK(error_class(rc) == MPI_ERR_BUFFER, "MPI_Bsend with no buffer: class %d",
                error_class(rc));
    free(bbuf);
  } else if (rank == 1) {
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < N; i++) {
      MPI_Status st;
      int count = -1, ok = 1;
      MPI_Recv(data, MAX_SIZE, MPI_CHAR, 0, i, MPI_COMM_WORLD, &st);
      MPI_Get_count(&st, MPI_CHAR, &count);
      for (int j = 0; j < kSizes[i] && ok; j++) ok = data[j] == (char)(j * 5 + i);
      MTEST_CHECK(count == kSizes[i] && ok, "buffered message %d: %d bytes, data ok %d", i, count,
                  ok);
    }
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
  }
  free(data);
}

/* The same buffer carries many more messages than it holds at once, as they drain. */
static void reuse(int rank) {
  const int n = 30000, rounds = 50;
  char *data = malloc(n);
  if (rank == 0) {
    MPI_Count bsize = 2 * (n + MPI_BSEND_OVERHEAD);
    char *bbuf = malloc(bsize);
    MPI_Buffer_attach_c(bbuf, bsize);
    for (int r = 0; r < rounds; r++) {
      fill(data, n, r);
      MPI_Request req;
      int rc = (r % 2) ? MPI_Ibsend_c(data, n, MPI_CHAR, 1, 30, MPI_COMM_WORLD, &req)
                       : MPI_Bsend_c(data, n, MPI_CHAR, 1, 30, MPI_COMM_WORLD);
      MTEST_CHECK(rc == MPI_SUCCESS, "round %d: %d", r, rc);
      if (r % 2) {
        int flag = 0;
        MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
        MTEST_CHECK(flag, "MPI_Ibsend did not complete at once");
        if (!flag) MPI_Wait(&req, MPI_STATUS_IGNORE);
      }
      /* At most two in flight: wait for rank 1 to take the older one. */
      if (r >= 1) MPI_Recv(NULL, 0, MPI_CHAR, 1, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    void *back;
    MPI_Count size;
    MPI_Buffer_detach_c(&back, &size);
    MTEST_CHECK(back == bbuf && size == bsize, "MPI_Buffer_detach_c");
    free(bbuf);
  } else if (rank == 1) {
    for (int r = 0; r < rounds; r++) {
      MPI_Recv(data, n, MPI_CHAR, 0, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      int ok = 1;
      for (int j = 0; j < n && ok; j++) ok = data[j] == (char)(j * 5 + r);
      MTEST_CHECK(ok, "round %d: wrong data", r);
      if (r < rounds - 1) MPI_Send(NULL, 0, MPI_CHAR, 0, 31, MPI_COMM_WORLD);
    }
  }
  free(data);
}

static void small_and_self(int rank) {
  /* Small messages, to self: the receive comes after the sends returned. */
  int out[10], in[10], bsize = 10 * (int)(sizeof(int) + MPI_BSEND_OVERHEAD);
  void *bbuf = malloc(bsize);
  MPI_Buffer_attach(bbuf, bsize);
  for (int i = 0; i < 10; i++) {
    out[i] = rank * 100 + i;
    MPI_Bsend(&out[i], 1, MPI_INT, rank, 40, MPI_COMM_WORLD);
  }
  for (int i = 0; i < 10; i++)
    MPI_Recv(&in[i], 1, MPI_INT, rank, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int i = 0; i < 10; i++) MTEST_CHECK(in[i] == rank * 100 + i, "self message %d", i);
  /* MPI_PROC_NULL takes no space. */
  MTEST_CHECK(MPI_Bsend(out, 10, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD) == MPI_SUCCESS,
              "MPI_Bsend to MPI_PROC_NULL");
  void *back;
  int size;
  MPI_Buffer_detach(&back, &size);
  MTEST_CHECK(back == bbuf, "detach of the small buffer");
  free(bbuf);
}

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  exact_fit(rank);
  reuse(rank);
  small_and_self(rank);
  return mtest_finalize();
}
