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
  MPI_Comm parent = MPI_COMM_WORLD, child = MPI_COMM_NULL;
  MPI_Comm_get_parent(&parent);
  MTEST_CHECK(parent == MPI_COMM_NULL, "MPI_Comm_get_parent gave %#x", parent);
  char *argv[] = {NULL};
  expect_unsupported(MPI_Comm_spawn("true", argv, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &child,
                                    MPI_ERRCODES_IGNORE),
                     "MPI_Comm_spawn", "dynamic process management");
  MTEST_CHECK(child == MPI_COMM_NULL, "MPI_Comm_spawn changed its output to %#x", child);
  char port[MPI_MAX_PORT_NAME];
  expect_unsupported(MPI_Open_port(MPI_INFO_NULL, port), "MPI_Open_port",
                     "dynamic process management");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  dynamic_processes();
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  return mtest_finalize();
}
