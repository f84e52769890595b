/* MPI_Allreduce and MPI_Reduce with the shared-memory algorithm (forced by the testlist):
 * counts 0, 1, 7, 1K, 1M (1M up to 4 ranks), MPI_SUM on ints, MPI_MAX on doubles, a
 * non-commutative user op on a derived type, in place and not, every root, back to back with
 * new data each time; then three MPI_Iallreduce at once completed in reverse order, and a
 * persistent MPI_Allreduce_init started three times. Results against a reference. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static int rank, size;

static int32_t ival(int r, int round, long i) { return (int32_t)(r * 7919 + round * 131 + i % 1000) - 500; }

/* x -> a x + b maps composed: (f op g)(x) = f(g(x)); the lower rank's map is the outer one. */
typedef struct {
  uint32_t a, b;
} affine;
static affine compose(affine f, affine g) {
  affine h = {f.a * g.a, f.a * g.b + f.b};
  return h;
}
static void affine_op(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  affine *f = in, *g = inout;
  for (int i = 0; i < *len; ++i) g[i] = compose(f[i], g[i]);
}
static affine aval(int r, int round, long i) {
  affine f = {(uint32_t)(2 * (r + round + i) + 1), (uint32_t)(r * 31 + i)};
  return f;
}

static void check_int_sum(long count, int in_place, int round) {
  int32_t *send = malloc((count + 1) * 4), *recv = malloc((count + 1) * 4);
  for (long i = 0; i < count; ++i) (in_place ? recv : send)[i] = ival(rank, round, i);
  recv[count] = 12345;
  MPI_Allreduce(in_place ? MPI_IN_PLACE : send, recv, (int)count, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  long bad = 0;
  for (long i = 0; i < count; ++i) {
    int32_t want = 0;
    for (int r = 0; r < size; ++r) want += ival(r, round, i);
    bad += recv[i] != want;
  }
  MTEST_CHECK(bad == 0 && recv[count] == 12345, "allreduce int sum count %ld in_place %d: %ld wrong",
              count, in_place, bad);
  free(send);
  free(recv);
}

static void check_double_max(long count, int root, int in_place) {
  double *send = malloc((count + 1) * 8), *recv = malloc((count + 1) * 8);
  int here = rank == root;
  for (long i = 0; i < count; ++i) (in_place && here ? recv : send)[i] = (double)ival(rank, root, i);
  MPI_Reduce(in_place && here ? MPI_IN_PLACE : send, recv, (int)count, MPI_DOUBLE, MPI_MAX, root,
             MPI_COMM_WORLD);
  long bad = 0;
  for (long i = 0; here && i < count; ++i) {
    double want = ival(0, root, i);
    for (int r = 1; r < size; ++r)
      if (ival(r, root, i) > want) want = ival(r, root, i);
    bad += recv[i] != want;
  }
  MTEST_CHECK(bad == 0, "reduce double max count %ld root %d: %ld wrong", count, root, bad);
  free(send);
  free(recv);
}

static void check_affine(long count, int root, int in_place, MPI_Op op, MPI_Datatype type) {
  affine *send = malloc((count + 1) * sizeof(affine)), *recv = malloc((count + 1) * sizeof(affine));
  int gets = root < 0 || rank == root;
  for (long i = 0; i < count; ++i) (in_place && gets ? recv : send)[i] = aval(rank, 3, i);
  void *sb = in_place && gets ? MPI_IN_PLACE : send;
  if (root < 0)
    MPI_Allreduce(sb, recv, (int)count, type, op, MPI_COMM_WORLD);
  else
    MPI_Reduce(sb, recv, (int)count, type, op, root, MPI_COMM_WORLD);
  long bad = 0;
  for (long i = 0; gets && i < count; ++i) {
    affine want = aval(size - 1, 3, i);
    for (int r = size - 2; r >= 0; --r) want = compose(aval(r, 3, i), want);
    bad += recv[i].a != want.a || recv[i].b != want.b;
  }
  MTEST_CHECK(bad == 0, "affine (non-commutative) count %ld root %d in_place %d: %ld wrong", count,
              root, in_place, bad);
  free(send);
  free(recv);
}

static void check_nonblocking(void) {
  enum { kN = 3, kCount = 1000 };
  int32_t send[kN][kCount], recv[kN][kCount];
  MPI_Request req[kN];
  for (int k = 0; k < kN; ++k) {
    for (int i = 0; i < kCount; ++i) send[k][i] = ival(rank, k, i);
    MPI_Iallreduce(send[k], recv[k], kCount * (k + 1) / kN, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req[k]);
  }
  for (int k = kN - 1; k >= 0; --k) MPI_Wait(&req[k], MPI_STATUS_IGNORE);
  long bad = 0;
  for (int k = 0; k < kN; ++k)
    for (int i = 0; i < kCount * (k + 1) / kN; ++i) {
      int32_t want = 0;
      for (int r = 0; r < size; ++r) want += ival(r, k, i);
      bad += recv[k][i] != want;
    }
  MTEST_CHECK(bad == 0, "three iallreduce at once: %ld wrong", bad);
}

static void check_persistent(void) {
  int32_t send[64], recv[64];
  MPI_Request req;
  MPI_Allreduce_init(send, recv, 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 64; ++i) send[i] = ival(rank, round, i);
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    long bad = 0;
    for (int i = 0; i < 64; ++i) {
      int32_t want = 0;
      for (int r = 0; r < size; ++r) want += ival(r, round, i);
      bad += recv[i] != want;
    }
    MTEST_CHECK(bad == 0, "persistent allreduce start %d: %ld wrong", round, bad);
  }
  MPI_Request_free(&req);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long counts[] = {0, 1, 7, 1024, 1L << 20};
  int ncounts = size <= 4 ? 5 : 4;
  MPI_Op affine_mpi_op;
  MPI_Op_create(affine_op, 0, &affine_mpi_op);
  MPI_Datatype affine_type;
  MPI_Type_contiguous(2, MPI_UINT32_T, &affine_type);
  MPI_Type_commit(&affine_type);
  for (int c = 0; c < ncounts; ++c)
    for (int in_place = 0; in_place <= 1; ++in_place) {
      for (int round = 0; round < 3; ++round) check_int_sum(counts[c], in_place, round);
      for (int root = 0; root < size; ++root) check_double_max(counts[c], root, in_place);
      for (int root = -1; root < size; ++root)
        check_affine(counts[c], root, in_place, affine_mpi_op, affine_type);
    }
  check_nonblocking();
  check_persistent();
  MPI_Type_free(&affine_type);
  MPI_Op_free(&affine_mpi_op);
  return mtest_finalize();
}
