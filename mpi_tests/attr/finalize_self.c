/* MPI_Finalize deletes MPI_COMM_SELF's attributes first, last set first, and their delete
 * callbacks may still call MPI: rank 0 prints " No Errors" from the last callback. */
#include <stdio.h>

#include "mtest.h"

static int order[2], deleted = 0;

static int delete_fn(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm;
  (void)keyval;
  (void)extra;
  order[deleted++] = *(int *)value;
  if (deleted == 2) {
    int rank, initialized, finalized;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank); /* MPI still works here */
    if (rank == 0 && initialized && !finalized && order[0] == 2 && order[1] == 1) {
      printf(" No Errors\n");
      fflush(stdout);
    } else if (rank == 0) {
      printf("wrong: order %d %d, finalized %d\n", order[0], order[1], finalized);
    }
  }
  return MPI_SUCCESS;
}

int main(int argc, char **argv) {
  static int first = 1, second = 2;
  int k1, k2;
  MPI_Init(&argc, &argv);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &k1, NULL);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &k2, NULL);
  MPI_Comm_set_attr(MPI_COMM_SELF, k1, &first);
  MPI_Comm_set_attr(MPI_COMM_SELF, k2, &second);
  MPI_Finalize();
  return deleted == 2 ? 0 : 1;
}
