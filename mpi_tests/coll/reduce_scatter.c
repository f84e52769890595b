/* MPI_Reduce_scatter_block, MPI_Reduce_scatter and their nonblocking forms: blocks of 0, 1, 7
 * and 1024 ints (MPI_Reduce_scatter: block i holds n + i % 3), MPI_SUM in place and not. */
#include <stdlib.h>

#include "mtest.h"

static int rank, size;

static int ival(int r, int i) { return r * 3 + i % 11 + 1; }

static int rs(int form, int block, const void *s, void *r, const int *counts) {
  MPI_Request req;
  int rc;
  if (form == 0)
    return block ? MPI_Reduce_scatter_block(s, r, counts[0], MPI_INT, MPI_SUM, MPI_COMM_WORLD)
                 : MPI_Reduce_scatter(s, r, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  rc = block ? MPI_Ireduce_scatter_block(s, r, counts[0], MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req)
             : MPI_Ireduce_scatter(s, r, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
  return rc != MPI_SUCCESS ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static void test(int form, int block, int n, int in_place) {
  int *counts = malloc(sizeof(int) * size), total = 0, first = 0;
  for (int i = 0; i < size; ++i) {
    counts[i] = block ? n : n + i % 3;
    if (i < rank) first += counts[i];
    total += counts[i];
  }
  int *s = malloc(sizeof(int) * (total + 1)), *r = malloc(sizeof(int) * (total + 1));
  for (int i = 0; i < total; ++i) (in_place ? r : s)[i] = ival(rank, i);
  MTEST_CHECK(rs(form, block, in_place ? MPI_IN_PLACE : s, r, counts) == MPI_SUCCESS, "rc");
  for (int i = 0; i < counts[rank]; ++i) {
    int expect = 0;
    for (int q = 0; q < size; ++q) expect += ival(q, first + i);
    if (r[i] != expect) {
      MTEST_CHECK(0, "form %d block %d n %d in_place %d: [%d] = %d, expected %d", form, block, n,
                  in_place, i, r[i], expect);
      break;
    }
  }
  free(counts), free(s), free(r);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int counts[] = {0, 1, 7, 1024};
  for (int form = 0; form < 2; ++form)
    for (int block = 0; block < 2; ++block)
      for (int c = 0; c < 4; ++c) {
        test(form, block, counts[c], 0);
        test(form, block, counts[c], 1);
      }
  return mtest_finalize();
}
