/* Context ids come back: thousands of communicators created and freed in turn (more than
 * there are ids), also when each ran a collective call (whose algorithms and guard keep state
 * and posted receives per communicator), and when too many are alive at once, creation fails
 * cleanly with an error that says what to do, and works again once one is freed. */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < 3000; ++i) {
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_free(&c);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  static char big[64 << 10];
  for (int i = 0; i < 3000; ++i) {
    MPI_Comm c;
    int rc = i % 2 ? MPI_Comm_dup(MPI_COMM_WORLD, &c) : MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &c);
    if (rc != MPI_SUCCESS) {
      MTEST_CHECK(0, "communicator %d (with a collective on each) could not be made", i);
      break;
    }
    int x = rank + i, sum = 0;
    MPI_Request r;
    switch (i % 4) {
      case 0:
        MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_MAX, c);
        break;
      case 1:
        MPI_Bcast(big, sizeof big, MPI_BYTE, 0, c);
        break;
      case 2:
        MPI_Ibarrier(c, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        break;
      default:
        MPI_Barrier(c);
        break;
    }
    MPI_Comm_free(&c);
  }
  enum { kMax = 4096 };
  MPI_Comm *live = malloc(kMax * sizeof(MPI_Comm));
  int n = 0, rc = MPI_SUCCESS;
  while (n < kMax && (rc = MPI_Comm_dup(MPI_COMM_WORLD, &live[n])) == MPI_SUCCESS) ++n;
  MTEST_CHECK(rc != MPI_SUCCESS, "%d communicators alive and no failure", n);
  MTEST_CHECK(n >= 1000, "only %d communicators could be alive at once", n);
  char msg[MPI_MAX_ERROR_STRING];
  int len;
  MPI_Error_string(rc, msg, &len);
  MTEST_CHECK(strstr(msg, "MPI_Comm_dup") && strstr(msg, "MPI_Comm_free"),
              "the error should say what to do: '%s'", msg);
  MPI_Comm_free(&live[n / 2]);
  rc = MPI_Comm_dup(MPI_COMM_WORLD, &live[n / 2]);
  MTEST_CHECK(rc == MPI_SUCCESS, "a communicator could not be made after one was freed");
  MPI_Barrier(live[n / 2]);
  for (int i = 0; i < n; ++i) MPI_Comm_free(&live[i]);
  free(live);
  return mtest_finalize();
}
