/* The calls about the library's state, before, during and after MPI_Init/MPI_Finalize. */
#include <stdio.h>
#include <string.h>

#include "mtest.h"

int main(int argc, char **argv) {
  int flag = -1, version = 0, subversion = -1, len = 0;
  char library[MPI_MAX_LIBRARY_VERSION_STRING];

  /* Allowed before MPI_Init. */
  MPI_Initialized(&flag);
  MTEST_CHECK(flag == 0, "MPI_Initialized before MPI_Init gave %d", flag);
  MPI_Finalized(&flag);
  MTEST_CHECK(flag == 0, "MPI_Finalized before MPI_Init gave %d", flag);
  MPI_Get_version(&version, &subversion);
  MTEST_CHECK(version == MPI_VERSION && subversion == MPI_SUBVERSION, "version %d.%d", version,
              subversion);
  MPI_Get_library_version(library, &len);
  MTEST_CHECK(len > 0 && len == (int)strlen(library) && strstr(library, "gpurun") != NULL,
              "library version '%s' (%d)", library, len);

  MPI_Init(&argc, &argv);
  MPI_Initialized(&flag);
  MTEST_CHECK(flag == 1, "MPI_Initialized after MPI_Init gave %d", flag);
  MPI_Finalized(&flag);
  MTEST_CHECK(flag == 0, "MPI_Finalized while running gave %d", flag);

  int provided = -1;
  MPI_Query_thread(&provided);
  MTEST_CHECK(provided == MPI_THREAD_SINGLE, "MPI_Init gives MPI_THREAD_SINGLE, got %d", provided);
  MPI_Is_thread_main(&flag);
  MTEST_CHECK(flag == 1, "the thread that called MPI_Init is the main thread");

  int rank, size, self_rank, self_size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_rank(MPI_COMM_SELF, &self_rank);
  MPI_Comm_size(MPI_COMM_SELF, &self_size);
  MTEST_CHECK(rank >= 0 && rank < size, "rank %d of %d", rank, size);
  MTEST_CHECK(self_rank == 0 && self_size == 1, "MPI_COMM_SELF: rank %d of %d", self_rank,
              self_size);

  char host[MPI_MAX_PROCESSOR_NAME];
  MPI_Get_processor_name(host, &len);
  MTEST_CHECK(len > 0 && len < MPI_MAX_PROCESSOR_NAME && len == (int)strlen(host),
              "processor name '%s' (%d)", host, len);

  double t0 = MPI_Wtime(), tick = MPI_Wtick(), t1;
  do {
    t1 = MPI_Wtime();
  } while (t1 == t0);
  MTEST_CHECK(t1 > t0, "MPI_Wtime goes forward: %g then %g", t0, t1);
  MTEST_CHECK(tick > 0 && tick < 1e-3, "MPI_Wtick %g", tick);

  return mtest_finalize();
}
