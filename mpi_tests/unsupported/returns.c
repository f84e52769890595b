/* The calls of features gpurun does not implement fail loudly: MPI_ERR_UNSUPPORTED_OPERATION,
 * through the communicator's handler (MPI_ERRORS_RETURN here), with a message that names the
 * call, the feature and the rank. Nothing is created: every output handle is left as it was. */
#include <stdio.h>
#include <string.h>

#include "mtest.h"

static int rank;

static void expect_unsupported(int rc, const char *call, const char *feature) {
  char rank_text[32];
  snprintf(rank_text, sizeof rank_text, "rank %d", rank);
  mtest_expect_error(rc, MPI_ERR_UNSUPPORTED_OPERATION, call, call);
  mtest_expect_error(rc, MPI_ERR_UNSUPPORTED_OPERATION, call, feature);
  mtest_expect_error(rc, MPI_ERR_UNSUPPORTED_OPERATION, call, rank_text);
}

static void dynamic_processes(void) {
  char port[MPI_MAX_PORT_NAME];
  expect_unsupported(MPI_Lookup_name("service", MPI_INFO_NULL, port), "MPI_Lookup_name",
                     "dynamic process management");
  expect_unsupported(MPI_Publish_name("service", MPI_INFO_NULL, "port"), "MPI_Publish_name",
                     "name publishing");
  expect_unsupported(MPI_Unpublish_name("service", MPI_INFO_NULL, "port"), "MPI_Unpublish_name",
                     "name publishing");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  dynamic_processes();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  return mtest_finalize();
}
