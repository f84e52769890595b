/* MPI_Allreduce and MPI_Iallreduce (persistent forms: persistent.c): counts 0, 1, 7,
 * 1024 (and 1M with MTEST_LARGE=1), MPI_SUM on int, MPI_MAX on double, MPI_PROD on long long,
 * MPI_BXOR on unsigned, MPI_MINLOC on MPI_DOUBLE_INT, MPI_SUM on a vector type with gaps, in
 * place and not, against a reference computed here. Run once per algorithm (testlist). */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static int rank, size;

/* form 0: blocking, 1: nonblocking. */
static int allreduce(int form, const void *s, void *r, int n, MPI_Datatype t, MPI_Op op) {
  if (form == 0) return MPI_Allreduce(s, r, n, t, op, MPI_COMM_WORLD);
  MPI_Request req;
  int rc = MPI_Iallreduce(s, r, n, t, op, MPI_COMM_WORLD, &req);
  if (rc != MPI_SUCCESS) return rc;
  return MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static int ival(int r, int i) { return r * 1000 + i % 997 + 1; }

static void test_int_sum(int form, int n, int in_place) {
  int *s = malloc(sizeof(int) * (n + 1)), *r = malloc(sizeof(int) * (n + 1));
  for (int i = 0; i < n; ++i) (in_place ? r : s)[i] = ival(rank, i);
  int rc = allreduce(form, in_place ? MPI_IN_PLACE : s, r, n, MPI_INT, MPI_SUM);
  MTEST_CHECK(rc == MPI_SUCCESS, "form %d n %d: rc %d", form, n, rc);
  for (int i = 0; i < n; ++i) {
    long expect = 0;
    for (int q = 0; q < size; ++q) expect += ival(q, i);
    if (r[i] != expect) {
      MTEST_CHECK(0, "form %d n %d in_place %d: [%d] = %d, expected %ld", form, n, in_place, i,
                  r[i], expect);
      break;
    }
  }
  free(s);
  free(r);
}

static void test_typed(int form, int n) {
  double *d = malloc(sizeof(double) * (n + 1)), *dmax = malloc(sizeof(double) * (n + 1));
  long long *l = malloc(sizeof(long long) * (n + 1)), *lp = malloc(sizeof(long long) * (n + 1));
  unsigned *u = malloc(sizeof(unsigned) * (n + 1)), *ux = malloc(sizeof(unsigned) * (n + 1));
  struct {
    double v;
    int i;
  } *p = malloc(sizeof(*p) * (n + 1)), *pm = malloc(sizeof(*p) * (n + 1));
  for (int i = 0; i < n; ++i) {
    d[i] = (double)((rank * 7 + i) % 13) - 6.5;
    l[i] = (i + rank) % 3 + 1;
    u[i] = (unsigned)(rank * 2654435761u + (unsigned)i);
    p[i].v = (double)((rank * 5 + i) % 4);
    p[i].i = rank;
  }
  MTEST_CHECK(allreduce(form, d, dmax, n, MPI_DOUBLE, MPI_MAX) == MPI_SUCCESS, "max");
  MTEST_CHECK(allreduce(form, l, lp, n, MPI_LONG_LONG, MPI_PROD) == MPI_SUCCESS, "prod");
  MTEST_CHECK(allreduce(form, u, ux, n, MPI_UNSIGNED, MPI_BXOR) == MPI_SUCCESS, "bxor");
  MTEST_CHECK(allreduce(form, p, pm, n, MPI_DOUBLE_INT, MPI_MINLOC) == MPI_SUCCESS, "minloc");
  for (int i = 0; i < n; ++i) {
    double emax = -1e9, eminv = 1e9;
    long long eprod = 1;
    unsigned exor = 0;
    int eloc = -1;
    for (int q = 0; q < size; ++q) {
      double dv = (double)((q * 7 + i) % 13) - 6.5, pv = (double)((q * 5 + i) % 4);
      if (dv > emax) emax = dv;
      eprod *= (i + q) % 3 + 1;
      exor ^= (unsigned)(q * 2654435761u + (unsigned)i);
      if (pv < eminv) {
        eminv = pv;
        eloc = q;
      }
    }
    int ok =
        dmax[i] == emax && lp[i] == eprod && ux[i] == exor && pm[i].v == eminv && pm[i].i == eloc;
    if (!ok) {
      MTEST_CHECK(
          0, "form %d n %d: element %d: max %g/%g prod %lld/%lld xor %u/%u minloc %g,%d/%g,%d",
          form, n, i, dmax[i], emax, lp[i], eprod, ux[i], exor, pm[i].v, pm[i].i, eminv, eloc);
      break;
    }
  }
  free(d), free(dmax), free(l), free(lp), free(u), free(ux), free(p), free(pm);
}

/* MPI_Type_vector(2, 1, 2, MPI_INT): the ints between must stay as they were. */
static void test_vector(int form, int n) {
  MPI_Datatype vec;
  MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  int *s = malloc(sizeof(int) * (3 * n + 1)), *r = malloc(sizeof(int) * (3 * n + 1));
  for (int i = 0; i < 3 * n; ++i) {
    s[i] = i % 3 == 1 ? -1 : ival(rank, i);
    r[i] = -2;
  }
  MTEST_CHECK(allreduce(form, s, r, n, vec, MPI_SUM) == MPI_SUCCESS, "vector");
  for (int i = 0; i < 3 * n; ++i) {
    long expect = -2;
    if (i % 3 != 1)
      for (int q = 0, e = 0; q < size; ++q) expect = (e += ival(q, i));
    if (r[i] != expect) {
      MTEST_CHECK(0, "form %d n %d vector: int %d = %d, expected %ld", form, n, i, r[i], expect);
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
  for (int form = 0; form < 2; ++form) {
    for (int c = 0; c < ncounts; ++c) {
      test_int_sum(form, counts[c], 0);
      test_int_sum(form, counts[c], 1);
      if (counts[c] <= 1024) {
        test_typed(form, counts[c]);
        test_vector(form, counts[c]);
      }
    }
  }
  return mtest_finalize();
}
