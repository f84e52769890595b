/* Sends that no rank ever receives must not hang MPI_Finalize. Each rank sends the next one a
 * large (rendezvous) buffered message and a large send it frees at once, and nobody posts a
 * receive: the program is wrong, and every rank waits in MPI_Finalize for the others to take
 * what it sent. Each send fails once its receiver finalizes (a warning names it) and every
 * rank ends, on every transport (ucx and ofi serve the pulls and packets of a rank that left
 * until it has what it waits for). With one rank, the messages go to itself. */
#include <stdio.h>
#include <stdlib.h>

#include "mtest.h"

enum { kLarge = 1 << 20 };

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char *buf = calloc(kLarge, 1);
  int bsize = kLarge + MPI_BSEND_OVERHEAD;
  MPI_Buffer_attach(malloc(bsize), bsize);
  int next = (rank + 1) % size;
  MTEST_CHECK(MPI_Bsend(buf, kLarge, MPI_CHAR, next, 7, MPI_COMM_WORLD) == MPI_SUCCESS, "bsend");
  MPI_Request r;
  MPI_Isend(buf, kLarge, MPI_CHAR, next, 8, MPI_COMM_WORLD, &r);
  MPI_Request_free(&r);
  int errors = mtest_errors();
  MPI_Finalize(); /* the buffer is never detached: MPI_Finalize deals with its message */
  free(buf);
  if (rank == 0 && errors == 0) printf(" No Errors\n");
  return errors != 0;
}
