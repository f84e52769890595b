/* MPI_Init_thread reports the level it provides, and MPI_Query_thread agrees. */
#include <stdlib.h>

#include "mtest.h"

int main(int argc, char **argv) {
  int required = argc > 1 ? atoi(argv[1]) : MPI_THREAD_MULTIPLE;
  int provided = -1, queried = -1;
  MPI_Init_thread(&argc, &argv, required, &provided);
  MTEST_CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE,
              "provided %d is a thread level", provided);
  MTEST_CHECK(provided == required, "asked for %d, got %d", required, provided);
  MPI_Query_thread(&queried);
  MTEST_CHECK(queried == provided, "MPI_Query_thread %d, MPI_Init_thread %d", queried, provided);
  return mtest_finalize();
}
