/* User ops (MPI_Op_create) in every reducing collective: a non-commutative one (composition of
 * affine maps x -> a x + b, so operands out of rank order change the result) on a derived type
 * of two long longs, and a commutative one; blocking and nonblocking; an op freed while a
 * nonblocking reduction that uses it is in flight. Results against a fold in rank order. */
#include <stdlib.h>

#include "mtest.h"

#define N 37

static int rank, size;
static MPI_Datatype affine_type;

typedef struct {
  long long a, b;
} Affine;

/* inout = in o inout: `in` is the lower ranks' map, applied first. */
static void compose(void *in, void *inout, int *len, MPI_Datatype *type) {
  MTEST_CHECK(*type == affine_type, "the user function got another datatype handle");
  Affine *x = in, *y = inout;
  for (int i = 0; i < *len; ++i) {
    Affine r = {y[i].a * x[i].a, y[i].a * x[i].b + y[i].b};
    y[i] = r;
  }
}

static void add(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  for (int i = 0; i < *len; ++i) ((int *)inout)[i] += ((int *)in)[i];
}

static Affine value(int r, int i) {
  Affine v = {(r * 7 + i) % 5 + 2, r * 3 + i + 1};
  return v;
}

static Affine fold(int lo, int hi, int i) {
  Affine acc = value(lo, i);
  for (int r = lo + 1; r <= hi; ++r) {
    Affine v = value(r, i), n = {v.a * acc.a, v.a * acc.b + v.b};
    acc = n;
  }
  return acc;
}

static void check(const char *what, int form, const Affine *got, int n, int lo, int hi, int at) {
  for (int i = 0; i < n; ++i) {
    Affine e = fold(lo, hi, at + i);
    if (got[i].a != e.a || got[i].b != e.b) {
      MTEST_CHECK(0, "%s form %d: element %d is (%lld, %lld), expected (%lld, %lld)", what, form,
                  i, got[i].a, got[i].b, e.a, e.b);
      return;
    }
  }
}

static int finish(int form, int rc, MPI_Request *req) {
  if (form == 0 || rc != MPI_SUCCESS) return rc;
  return MPI_Wait(req, MPI_STATUS_IGNORE);
}

static void non_commutative(int form, MPI_Op op) {
  Affine *s = malloc(sizeof(Affine) * N * size), *r = malloc(sizeof(Affine) * N * size);
  MPI_Request q;
  MPI_Comm w = MPI_COMM_WORLD;
  for (int i = 0; i < N * size; ++i) s[i] = value(rank, i);
  for (int root = 0; root < size; ++root) {
    int rc = form ? MPI_Ireduce(s, r, N, affine_type, op, root, w, &q)
                  : MPI_Reduce(s, r, N, affine_type, op, root, w);
    MTEST_CHECK(finish(form, rc, &q) == MPI_SUCCESS, "reduce");
    if (rank == root) check("reduce", form, r, N, 0, size - 1, 0);
  }
  int rc = form ? MPI_Iallreduce(s, r, N, affine_type, op, w, &q)
                : MPI_Allreduce(s, r, N, affine_type, op, w);
  MTEST_CHECK(finish(form, rc, &q) == MPI_SUCCESS, "allreduce");
  check("allreduce", form, r, N, 0, size - 1, 0);
  rc = form ? MPI_Iscan(s, r, N, affine_type, op, w, &q) : MPI_Scan(s, r, N, affine_type, op, w);
  MTEST_CHECK(finish(form, rc, &q) == MPI_SUCCESS, "scan");
  check("scan", form, r, N, 0, rank, 0);
  rc = form ? MPI_Iexscan(s, r, N, affine_type, op, w, &q)
            : MPI_Exscan(s, r, N, affine_type, op, w);
  MTEST_CHECK(finish(form, rc, &q) == MPI_SUCCESS, "exscan");
  if (rank > 0) check("exscan", form, r, N, 0, rank - 1, 0);
  rc = form ? MPI_Ireduce_scatter_block(s, r, N, affine_type, op, w, &q)
            : MPI_Reduce_scatter_block(s, r, N, affine_type, op, w);
  MTEST_CHECK(finish(form, rc, &q) == MPI_SUCCESS, "reduce_scatter_block");
  check("reduce_scatter_block", form, r, N, 0, size - 1, rank * N);
  free(s);
  free(r);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Type_contiguous(2, MPI_LONG_LONG, &affine_type);
  MPI_Type_commit(&affine_type);
  MPI_Op op, sum;
  MPI_Op_create(compose, 0, &op);
  MPI_Op_create(add, 1, &sum);
  for (int form = 0; form < 2; ++form) non_commutative(form, op);
  /* A commutative user op, freed while the reduction that uses it is in flight. */
  int x[N], y[N];
  for (int i = 0; i < N; ++i) x[i] = rank + i;
  MPI_Request q;
  MPI_Iallreduce(x, y, N, MPI_INT, sum, MPI_COMM_WORLD, &q);
  MPI_Op_free(&sum);
  MTEST_CHECK(MPI_Wait(&q, MPI_STATUS_IGNORE) == MPI_SUCCESS, "allreduce with a freed op");
  for (int i = 0; i < N; ++i)
    MTEST_CHECK(y[i] == size * (size - 1) / 2 + size * i, "[%d] = %d", i, y[i]);
  MPI_Op_free(&op);
  MPI_Type_free(&affine_type);
  return mtest_finalize();
}
