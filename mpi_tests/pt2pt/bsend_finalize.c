/* A program may end right after MPI_Bsend without detaching its buffer: the message must still
 * arrive (MPI_Finalize waits for buffered sends). Rendezvous size, so the receiver needs the
 * sender to keep going after the call returned. */
#include <stdio.h>
#include <stdlib.h>

#include "mtest.h"

#define N 100000

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char *buf = calloc(N, 1);
  if (rank == 0) {
    int bsize = N + MPI_BSEND_OVERHEAD;
    MPI_Buffer_attach(malloc(bsize), bsize);
    for (int i = 0; i < N; i++) buf[i] = (char)(i * 3);
    MPI_Bsend(buf, N, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
  } else if (rank == 1) {
    int ok = 1;
    MPI_Recv(buf, N, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < N && ok; i++) ok = buf[i] == (char)(i * 3);
    MTEST_CHECK(ok, "the buffered message differs");
  }
  free(buf);
  /* No barrier first (mtest_finalize has one): the barrier would be reached before the
   * message is out, and what is tested is that MPI_Finalize itself sends it. The receiver
   * speaks: it alone knows whether the message came. */
  MPI_Finalize();
  if (rank == 1 && mtest_errors() == 0) printf(" No Errors\n");
  return mtest_errors() != 0;
}
