/* MPI_Scan, MPI_Exscan and their nonblocking forms: counts 0, 1, 7, 1024, MPI_SUM on int in
 * place and not, MPI_PROD on double; rank 0's MPI_Exscan result is left as it was. */
#include <stdlib.h>

#include "mtest.h"

static int rank, size;

static int scan(int form, int exclusive, const void *s, void *r, int n, MPI_Datatype t, MPI_Op op) {
  MPI_Request req;
  int rc;
  if (form == 0)
    return exclusive ? MPI_Exscan(s, r, n, t, op, MPI_COMM_WORLD)
                     : MPI_Scan(s, r, n, t, op, MPI_COMM_WORLD);
  rc = exclusive ? MPI_Iexscan(s, r, n, t, op, MPI_COMM_WORLD, &req)
                 : MPI_Iscan(s, r, n, t, op, MPI_COMM_WORLD, &req);
  return rc != MPI_SUCCESS ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static int ival(int r, int i) { return r * 10 + i % 7 + 1; }

static void test(int form, int exclusive, int n, int in_place) {
  int *s = malloc(sizeof(int) * (n + 1)), *r = malloc(sizeof(int) * (n + 1));
  double *d = malloc(sizeof(double) * (n + 1)), *dr = malloc(sizeof(double) * (n + 1));
  for (int i = 0; i < n; ++i) {
    s[i] = ival(rank, i);
    r[i] = in_place ? s[i] : -1;
    d[i] = 1.0 + (rank + i) % 3;
    dr[i] = -1.0;
  }
  MTEST_CHECK(
      scan(form, exclusive, in_place ? MPI_IN_PLACE : s, r, n, MPI_INT, MPI_SUM) == MPI_SUCCESS,
      "int");
  MTEST_CHECK(scan(form, exclusive, d, dr, n, MPI_DOUBLE, MPI_PROD) == MPI_SUCCESS, "double");
  int last = exclusive ? rank - 1 : rank;
  for (int i = 0; i < n; ++i) {
    int expect = 0;
    double eprod = 1.0;
    for (int q = 0; q <= last; ++q) {
      expect += ival(q, i);
      eprod *= 1.0 + (q + i) % 3;
    }
    if (last < 0) { /* rank 0 of an exscan: untouched */
      expect = in_place ? ival(rank, i) : -1;
      eprod = -1.0;
    }
    if (r[i] != expect || dr[i] != eprod) {
      MTEST_CHECK(0, "form %d exclusive %d n %d in_place %d: [%d] = %d/%d, %g/%g", form, exclusive,
                  n, in_place, i, r[i], expect, dr[i], eprod);
      break;
    }
  }
  free(s), free(r), free(d), free(dr);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int counts[] = {0, 1, 7, 1024};
  for (int form = 0; form < 2; ++form)
    for (int exclusive = 0; exclusive < 2; ++exclusive)
      for (int c = 0; c < 4; ++c) {
        test(form, exclusive, counts[c], 0);
        test(form, exclusive, counts[c], 1);
      }
  return mtest_finalize();
}
