/* MPI_Dims_create: balanced grids (non-increasing extents whose spread is smallest), fixed
 * entries kept, many more dimensions than factors (100000: extents of 1 after the factors),
 * and the cases the standard makes erroneous rejected with MPI_ERR_DIMS or MPI_ERR_ARG under
 * MPI_ERRORS_RETURN. */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static void expect_dims(int nnodes, int ndims, const int *in, const int *want) {
  int dims[8];
  memcpy(dims, in, sizeof(int) * (size_t)ndims);
  int rc = MPI_Dims_create(nnodes, ndims, dims);
  MTEST_CHECK(rc == MPI_SUCCESS, "Dims_create(%d, %d) failed: %d", nnodes, ndims, rc);
  for (int i = 0; i < ndims; ++i)
    MTEST_CHECK(dims[i] == want[i], "Dims_create(%d, %d): dims[%d] = %d, expected %d", nnodes,
                ndims, i, dims[i], want[i]);
}

static void expect_error(int nnodes, int ndims, const int *in, int error_class) {
  int dims[8];
  if (in != NULL) memcpy(dims, in, sizeof(int) * (size_t)(ndims > 0 ? ndims : 0));
  int rc = MPI_Dims_create(nnodes, ndims, in != NULL ? dims : NULL), cls = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  MTEST_CHECK(cls == error_class, "Dims_create(%d, %d): class %d, expected %d", nnodes, ndims, cls,
              error_class);
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, text, &len);
    MTEST_CHECK(strstr(text, "MPI_Dims_create") != NULL, "message \"%s\" names no call", text);
  }
}

/* ndims far beyond the factors of nnodes: the factors first, then 1s. */
static void many_dimensions(int nnodes, int ndims, const int *factors, int nfactors) {
  int *dims = calloc((size_t)ndims, sizeof(int));
  int rc = MPI_Dims_create(nnodes, ndims, dims), wrong = 0;
  MTEST_CHECK(rc == MPI_SUCCESS, "Dims_create(%d, %d) failed: %d", nnodes, ndims, rc);
  for (int i = 0; i < ndims; ++i) wrong += dims[i] != (i < nfactors ? factors[i] : 1);
  MTEST_CHECK(wrong == 0, "Dims_create(%d, %d): %d extents wrong (first %d %d %d)", nnodes, ndims,
              wrong, dims[0], dims[1], dims[2]);
  free(dims);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int z[8] = {0};
  expect_dims(1, 1, z, (int[]){1});
  expect_dims(6, 2, z, (int[]){3, 2});
  expect_dims(7, 2, z, (int[]){7, 1});
  expect_dims(8, 3, z, (int[]){2, 2, 2});
  expect_dims(12, 2, z, (int[]){4, 3});
  expect_dims(12, 3, z, (int[]){3, 2, 2});
  expect_dims(16, 4, z, (int[]){2, 2, 2, 2});
  expect_dims(24, 3, z, (int[]){4, 3, 2});
  expect_dims(72, 2, z, (int[]){9, 8}); /* greedy prime packing would give 12 x 6 */
  expect_dims(1000000, 3, z, (int[]){100, 100, 100});
  expect_dims(9, 4, z, (int[]){3, 3, 1, 1});
  expect_dims(2147483647, 2, z, (int[]){2147483647, 1}); /* a prime */
  expect_dims(12, 3, (int[]){0, 3, 0}, (int[]){2, 3, 2});
  expect_dims(12, 2, (int[]){3, 4}, (int[]){3, 4});
  expect_dims(1, 0, z, z);
  many_dimensions(12, 100000, (int[]){3, 2, 2}, 3);
  many_dimensions(1, 100000, NULL, 0);
  int twos[30];
  for (int i = 0; i < 30; ++i) twos[i] = 2;
  many_dimensions(1 << 30, 40, twos, 30);
  /* Erroneous: ndims < 0, nnodes <= 0, a negative extent, fixed extents not dividing nnodes. */
  expect_error(6, -1, z, MPI_ERR_DIMS);
  expect_error(0, 2, z, MPI_ERR_ARG);
  expect_error(6, 2, (int[]){-2, 0}, MPI_ERR_DIMS);
  expect_error(10, 2, (int[]){3, 0}, MPI_ERR_DIMS);
  expect_error(12, 2, (int[]){3, 3}, MPI_ERR_DIMS);
  expect_error(6, 0, z, MPI_ERR_DIMS); /* no free dimension to hold the 6 */
  expect_error(6, 1, NULL, MPI_ERR_ARG);
  return mtest_finalize();
}
