/* MPI_Reduce_scatter_block and MPI_Reduce_scatter with the shared-memory algorithm (forced by
 * the testlist): equal blocks of 0, 1, 7, 1K, 64K ints and unequal blocks (some empty), MPI_SUM
 * and a non-commutative user op, in place and not, back to back with new data. */
#include <stdint.h>
#include <stdlib.h>

#include "mtest.h"

static int rank, size;

static uint32_t val(int r, int round, long i) { return (uint32_t)((r + 1) * 2654435761u + round * 97u + i * 31u); }

/* 2x2 matrices of uint32 under multiplication: associative, not commutative. */
typedef struct {
  uint32_t m[4];
} matrix;
static matrix times(matrix a, matrix b) {
  matrix c = {{a.m[0] * b.m[0] + a.m[1] * b.m[2], a.m[0] * b.m[1] + a.m[1] * b.m[3],
               a.m[2] * b.m[0] + a.m[3] * b.m[2], a.m[2] * b.m[1] + a.m[3] * b.m[3]}};
  return c;
}
static void times_op(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  matrix *a = in, *b = inout;
  for (int i = 0; i < *len; ++i) b[i] = times(a[i], b[i]);
}
static matrix mval(int r, int round, long i) {
  matrix x = {{val(r, round, 4 * i), val(r, round, 4 * i + 1), val(r, round, 4 * i + 2),
               val(r, round, 4 * i + 3)}};
  return x;
}

/* counts[r] elements for rank r; `mat`: matrices with the user op, else uint32 sums. */
static void check(const int *counts, int mat, int in_place, int round, MPI_Op op, MPI_Datatype mt) {
  long total = 0, first = 0;
  for (int r = 0; r < size; ++r) {
    if (r == rank) first = total;
    total += counts[r];
  }
  size_t esz = mat ? sizeof(matrix) : 4;
  char *send = malloc(total * esz + 1), *recv = malloc(total * esz + 1);
  char *src = in_place ? recv : send;
  for (long i = 0; i < total; ++i) {
    if (mat) ((matrix *)src)[i] = mval(rank, round, i);
    else ((uint32_t *)src)[i] = val(rank, round, i);
  }
  int equal = 1;
  for (int r = 1; r < size; ++r) equal &= counts[r] == counts[0];
  void *sb = in_place ? MPI_IN_PLACE : send;
  MPI_Datatype t = mat ? mt : MPI_UINT32_T;
  MPI_Op o = mat ? op : MPI_SUM;
  if (equal)
    MPI_Reduce_scatter_block(sb, recv, counts[0], t, o, MPI_COMM_WORLD);
  else
    MPI_Reduce_scatter(sb, recv, counts, t, o, MPI_COMM_WORLD);
  long bad = 0;
  for (long i = 0; i < counts[rank]; ++i) {
    if (mat) {
      matrix want = mval(size - 1, round, first + i);
      for (int r = size - 2; r >= 0; --r) want = times(mval(r, round, first + i), want);
      matrix got = ((matrix *)recv)[i];
      for (int k = 0; k < 4; ++k) bad += got.m[k] != want.m[k];
    } else {
      uint32_t want = 0;
      for (int r = 0; r < size; ++r) want += val(r, round, first + i);
      bad += ((uint32_t *)recv)[i] != want;
    }
  }
  MTEST_CHECK(bad == 0, "reduce_scatter%s of %d (mat %d, in_place %d): %ld wrong", equal ? "_block" : "",
              counts[rank], mat, in_place, bad);
  free(send);
  free(recv);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Op op;
  MPI_Op_create(times_op, 0, &op);
  MPI_Datatype mt;
  MPI_Type_contiguous(4, MPI_UINT32_T, &mt);
  MPI_Type_commit(&mt);
  int *counts = malloc(size * sizeof(int));
  int equal_counts[] = {0, 1, 7, 1024, 65536};
  int round = 0;
  for (int c = 0; c <= 5; ++c)
    for (int mat = 0; mat <= 1; ++mat)
      for (int in_place = 0; in_place <= 1; ++in_place, ++round) {
        for (int r = 0; r < size; ++r) counts[r] = c < 5 ? equal_counts[c] : r * 3 % 5;
        check(counts, mat, in_place, round, op, mt);
      }
  free(counts);
  MPI_Type_free(&mt);
  MPI_Op_free(&op);
  return mtest_finalize();
}
