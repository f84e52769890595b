/* A send freed with MPI_Request_free still completes: rank 0 frees a large (rendezvous) and a
 * small send right away and finalizes; rank 1, slower on purpose, must get both messages. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mtest.h"

enum { kLarge = 1 << 20 };

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char *buf = malloc(kLarge);
  if (rank == 0) {
    MPI_Request r[2];
    for (int i = 0; i < kLarge; i++) buf[i] = (char)(i * 11);
    MPI_Isend(buf, kLarge, MPI_CHAR, 1, 1, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(buf, 8, MPI_CHAR, 1, 2, MPI_COMM_WORLD, &r[1]);
    MPI_Request_free(&r[0]);
    MPI_Request_free(&r[1]);
    MTEST_CHECK(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL, "freed handles");
    MPI_Finalize();  /* must not leave before the data did */
    free(buf);
    return mtest_errors() != 0;
  }
  if (rank == 1) {
    usleep(200000);
    MPI_Recv(buf, kLarge, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < kLarge; i++)
      if (buf[i] != (char)(i * 11)) {
        MTEST_CHECK(0, "byte %d is %d", i, buf[i]);
        break;
      }
    MPI_Recv(buf, 8, MPI_CHAR, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  free(buf);
  /* Rank 0 has finalized: no barrier, the verdict is rank 1's. */
  int errors = mtest_errors();
  MPI_Finalize();
  if (rank == 1 && errors == 0) printf(" No Errors\n");
  return errors != 0;
}
