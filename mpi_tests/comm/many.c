/* Context ids come back: thousands of communicators created and freed in turn (more than
 * there are ids), and when too many are alive at once, creation fails cleanly with an error
 * that says what to do, and works again once one is freed. */
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
  enum { kMax = 4096 };
  MPI_Comm *live = malloc(kMax * sizeof(MPI_Comm));
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
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
