/* MPI_Bcast and MPI_Ibcast from every root: counts 0, 1, 7, 1024 (and 1M with MTEST_LARGE=1)
 * of MPI_INT, MPI_DOUBLE and a vector type with gaps (which must stay as they were). */
#include <stdlib.h>

#include "mtest.h"

static int rank, size;

static int bcast(int form, void *buf, int n, MPI_Datatype t, int root) {
  if (form == 0) return MPI_Bcast(buf, n, t, root, MPI_COMM_WORLD);
  MPI_Request req;
  int rc = MPI_Ibcast(buf, n, t, root, MPI_COMM_WORLD, &req);
  return rc != MPI_SUCCESS ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static void test_ints(int form, int n, int root) {
  int *b = malloc(sizeof(int) * (n + 1));
  for (int i = 0; i < n; ++i) b[i] = rank == root ? root * 100 + i : -1;
  MTEST_CHECK(bcast(form, b, n, MPI_INT, root) == MPI_SUCCESS, "form %d", form);
  for (int i = 0; i < n; ++i) {
    if (b[i] != root * 100 + i) {
      MTEST_CHECK(0, "form %d n %d root %d: [%d] = %d", form, n, root, i, b[i]);
      break;
    }
  }
  free(b);
}

static void test_doubles_and_vector(int form, int n, int root) {
  double *d = malloc(sizeof(double) * (n + 1));
  for (int i = 0; i < n; ++i) d[i] = rank == root ? i * 0.5 + root : -1.0;
  MTEST_CHECK(bcast(form, d, n, MPI_DOUBLE, root) == MPI_SUCCESS, "double");
  for (int i = 0; i < n; ++i) MTEST_CHECK(d[i] == i * 0.5 + root, "double [%d] = %g", i, d[i]);
  MPI_Datatype vec;
  MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  int *v = malloc(sizeof(int) * (3 * n + 1));
  for (int i = 0; i < 3 * n; ++i) v[i] = i % 3 == 1 ? -7 : (rank == root ? i + root : -1);
  MTEST_CHECK(bcast(form, v, n, vec, root) == MPI_SUCCESS, "vector");
  for (int i = 0; i < 3 * n; ++i) {
    int expect = i % 3 == 1 ? -7 : i + root;
    if (v[i] != expect) {
      MTEST_CHECK(0, "vector n %d root %d: int %d = %d, expected %d", n, root, i, v[i], expect);
      break;
    }
  }
  MPI_Type_free(&vec);
  free(d);
  free(v);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int counts[] = {0, 1, 7, 1024, 1 << 20};
  int ncounts = getenv("MTEST_LARGE") ? 5 : 4;
  for (int form = 0; form < 2; ++form)
    for (int c = 0; c < ncounts; ++c)
      for (int root = 0; root < size; ++root) {
        test_ints(form, counts[c], root);
        if (counts[c] <= 1024) test_doubles_and_vector(form, counts[c], root);
      }
  return mtest_finalize();
}
