/* A freed send is taken after its sender has finalized: rank 0 frees a large (rendezvous) send
 * and finalizes at once; rank 1 keeps making progress for a while (so that it hears rank 0
 * leave before it receives), then receives the message, which must arrive whole. */
#include <stdio.h>
#include <stdlib.h>

#include "mtest.h"

enum { kLarge = 1 << 20 };

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char *buf = malloc(kLarge);
  if (rank == 0) {
    MPI_Request r;
    for (int i = 0; i < kLarge; i++) buf[i] = (char)(i * 7);
    MPI_Isend(buf, kLarge, MPI_CHAR, 1, 1, MPI_COMM_WORLD, &r);
    MPI_Request_free(&r);
    MPI_Finalize(); /* leaves its data behind for rank 1 */
    free(buf);
    return mtest_errors() != 0;
  }
  if (rank == 1) {
    double start = MPI_Wtime();
    int flag;
    while (MPI_Wtime() - start < 0.3)
      MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    MTEST_CHECK(MPI_Recv(buf, kLarge, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE) ==
                    MPI_SUCCESS,
                "the receive failed");
    for (int i = 0; i < kLarge; i++)
      if (buf[i] != (char)(i * 7)) {
        MTEST_CHECK(0, "byte %d is %d", i, buf[i]);
        break;
      }
  }
  free(buf);
  int errors = mtest_errors();
  MPI_Finalize();
  if (rank == 1 && errors == 0) printf(" No Errors\n");
  return errors != 0;
}
