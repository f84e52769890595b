/* A spawned process that ends without MPI_Finalize: the parents' operations with it fail with
 * MPI_ERR_PROC_ABORTED, naming it as lost, instead of waiting for it for ever. The child meets
 * its parents once (a barrier over the intercommunicator), then exits; the parents then receive
 * from it and take part in a bcast it roots (which fails where it meets the child), both with
 * MPI_ERRORS_RETURN, and finalize. The children's gpurun reports the child's exit code; the
 * parents' job goes on. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mtest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm parent, inter;
  MPI_Comm_get_parent(&parent);
  if (parent != MPI_COMM_NULL) {
    MPI_Barrier(parent);
    _exit(3);
  }
  char self[8192], cwd[4096];
  if (argv[0][0] == '/')
    snprintf(self, sizeof self, "%s", argv[0]);
  else
    snprintf(self, sizeof self, "%s/%s", getcwd(cwd, sizeof cwd) ? cwd : ".", argv[0]);
  MPI_Comm_spawn(self, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                 MPI_ERRCODES_IGNORE);
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  MPI_Barrier(inter);
  int value = 0;
  int rc = MPI_Recv(&value, 1, MPI_INT, 0, 0, inter, MPI_STATUS_IGNORE);
  mtest_expect_error(rc, MPI_ERR_PROC_ABORTED, "a receive from the lost child", "is lost");
  /* The parents' first rank takes the root's data (and fails); the others get theirs from it,
   * and may fail or not (an error leaves a collective's outcome elsewhere undefined). */
  rc = MPI_Bcast(&value, 1, MPI_INT, 0, inter);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) MTEST_CHECK(rc != MPI_SUCCESS, "a bcast rooted at the lost child succeeded");
  MPI_Comm_free(&inter);
  return mtest_finalize();
}
