/* MPI_Reduce and MPI_Ireduce to every root: counts 0, 1, 7, 1024 (and 1M with MTEST_LARGE=1),
 * MPI_SUM on int (in place at the root and not), MPI_MAX on double, MPI_MAXLOC on MPI_2INT,
 * MPI_LOR on int, MPI_SUM on a vector type with gaps. */
#include <stdlib.h>

#include "mtest.h"

static int rank, size;

static int reduce(int form, const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, int root) {
  if (form == 0) return MPI_Reduce(s, r, n, t, op, root, MPI_COMM_WORLD);
  MPI_Request req;
  int rc = MPI_Ireduce(s, r, n, t, op, root, MPI_COMM_WORLD, &req);
  return rc != MPI_SUCCESS ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static int ival(int r, int i) { return (r + 1) * 1000 + i % 991; }

static void test_sum(int form, int n, int root, int in_place) {
  int *s = malloc(sizeof(int) * (n + 1)), *r = malloc(sizeof(int) * (n + 1));
  int here = in_place && rank == root;
  for (int i = 0; i < n; ++i) (here ? r : s)[i] = ival(rank, i);
  int rc =
      reduce(form, here ? MPI_IN_PLACE : s, rank == root ? r : NULL, n, MPI_INT, MPI_SUM, root);
  MTEST_CHECK(rc == MPI_SUCCESS, "rc %d", rc);
  for (int i = 0; rank == root && i < n; ++i) {
    int expect = 0;
    for (int q = 0; q < size; ++q) expect += ival(q, i);
    if (r[i] != expect) {
      MTEST_CHECK(0, "form %d n %d root %d in_place %d: [%d] = %d, expected %d", form, n, root,
                  in_place, i, r[i], expect);
      break;
    }
  }
  free(s);
  free(r);
}

static void test_other_ops(int form, int n, int root) {
  double *d = malloc(sizeof(double) * (n + 1)), *dm = malloc(sizeof(double) * (n + 1));
  int *pair = malloc(sizeof(int) * (2 * n + 1)), *pm = malloc(sizeof(int) * (2 * n + 1));
  int *b = malloc(sizeof(int) * (n + 1)), *bo = malloc(sizeof(int) * (n + 1));
  for (int i = 0; i < n; ++i) {
    d[i] = (rank * 3 + i) % 5 - 2.0;
    pair[2 * i] = (rank + i) % 3;
    pair[2 * i + 1] = rank;
    b[i] = rank == i % (size + 1);
  }
  MTEST_CHECK(reduce(form, d, dm, n, MPI_DOUBLE, MPI_MAX, root) == MPI_SUCCESS, "max");
  MTEST_CHECK(reduce(form, pair, pm, n, MPI_2INT, MPI_MAXLOC, root) == MPI_SUCCESS, "maxloc");
  MTEST_CHECK(reduce(form, b, bo, n, MPI_INT, MPI_LOR, root) == MPI_SUCCESS, "lor");
  for (int i = 0; rank == root && i < n; ++i) {
    double emax = -100;
    int ev = -1, eloc = -1, elor = 0;
    for (int q = 0; q < size; ++q) {
      double x = (q * 3 + i) % 5 - 2.0;
      if (x > emax) emax = x;
      if ((q + i) % 3 > ev) {
        ev = (q + i) % 3;
        eloc = q;
      }
      elor |= q == i % (size + 1);
    }
    if (dm[i] != emax || pm[2 * i] != ev || pm[2 * i + 1] != eloc || bo[i] != elor) {
      MTEST_CHECK(0, "n %d root %d element %d: max %g/%g maxloc %d,%d/%d,%d lor %d/%d", n, root, i,
                  dm[i], emax, pm[2 * i], pm[2 * i + 1], ev, eloc, bo[i], elor);
      break;
    }
  }
  free(d), free(dm), free(pair), free(pm), free(b), free(bo);
}

static void test_vector(int form, int n, int root) {
  MPI_Datatype vec;
  MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  int *s = malloc(sizeof(int) * (3 * n + 1)), *r = malloc(sizeof(int) * (3 * n + 1));
  for (int i = 0; i < 3 * n; ++i) {
    s[i] = ival(rank, i);
    r[i] = -3;
  }
  MTEST_CHECK(reduce(form, s, r, n, vec, MPI_SUM, root) == MPI_SUCCESS, "vector");
  for (int i = 0; rank == root && i < 3 * n; ++i) {
    int expect = -3;
    if (i % 3 != 1) {
      expect = 0;
      for (int q = 0; q < size; ++q) expect += ival(q, i);
    }
    if (r[i] != expect) {
      MTEST_CHECK(0, "vector n %d root %d: int %d = %d, expected %d", n, root, i, r[i], expect);
      break;
    }
  }
  MPI_Type_free(&vec);
  free(s);
  free(r);
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
        test_sum(form, counts[c], root, 0);
        test_sum(form, counts[c], root, 1);
        if (counts[c] <= 1024) {
          test_other_ops(form, counts[c], root);
          test_vector(form, counts[c], root);
        }
      }
  return mtest_finalize();
}
