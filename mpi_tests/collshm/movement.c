/* MPI_Bcast, MPI_Allgather(v), MPI_Alltoall(v), MPI_Gather and MPI_Scatter with the shared-memory
 * algorithms (forced by the testlist): counts 0, 1, 7, 1K, 64K, MPI_INT and a strided derived
 * type (holes must stay untouched), in place and not, every root, new data each round. */
#include <stdint.h>
#include <stdlib.h>

#include "mtest.h"

#define HOLE (-7)

static int rank, size;
static MPI_Datatype strided; /* two ints with a hole between and one after: extent 16 */

static int32_t val(int from, int block, long i, int round) {
  return from * 1000003 + block * 7919 + (int32_t)(i % 100000) * 3 + round * 17 + 1;
}

/* `blocks` blocks of `count` elements of `type` as ints: element e's data ints are at int
 * offsets 4e and 4e + 2 (strided) or e (MPI_INT). */
typedef struct {
  int32_t *ints;
  long count, per;
  int str, blocks;
} array;

static array make(MPI_Datatype type, long count, int blocks) {
  array a = {0, count, type == strided ? 2 : 1, type == strided, blocks};
  long n = (a.str ? 4 : 1) * count * blocks + 1;
  a.ints = malloc(n * sizeof(int32_t));
  for (long i = 0; i < n; ++i) a.ints[i] = HOLE;
  return a;
}
static int32_t *at(array *a, int b, long i) {
  long e = b * a->count + i / a->per, k = i % a->per;
  return a->str ? &a->ints[e * 4 + k * 2] : &a->ints[e];
}
static void fill(array *a, int b, int from, int block, int round) {
  for (long i = 0; i < a->count * a->per; ++i) *at(a, b, i) = val(from, block, i, round);
}
static int holds(array *a, int b, int from, int block, int round) {
  for (long i = 0; i < a->count * a->per; ++i)
    if (*at(a, b, i) != val(from, block, i, round)) return 0;
  return 1;
}
static int holes(array *a) {
  long n = (a->str ? 4 : 1) * a->count * a->blocks;
  if (a->ints[n] != HOLE) return 0;
  for (long i = 1; a->str && i < n; i += 2)
    if (a->ints[i] != HOLE) return 0;
  return 1;
}

static void bcast(MPI_Datatype t, long n, int round) {
  for (int root = 0; root < size; ++root) {
    array a = make(t, n, 1);
    fill(&a, 0, rank == root ? root : rank + 50, 0, round);
    MPI_Bcast(a.ints, (int)n, t, root, MPI_COMM_WORLD);
    MTEST_CHECK(holds(&a, 0, root, 0, round) && holes(&a), "bcast n %ld root %d", n, root);
    free(a.ints);
  }
}

static void allgather(MPI_Datatype t, long n, int in_place, int round) {
  array s = make(t, n, 1), r = make(t, n, size);
  fill(&s, 0, rank, 0, round);
  if (in_place) fill(&r, rank, rank, 0, round);
  MPI_Allgather(in_place ? MPI_IN_PLACE : s.ints, (int)n, t, r.ints, (int)n, t, MPI_COMM_WORLD);
  int ok = holes(&r);
  for (int b = 0; b < size; ++b) ok &= holds(&r, b, b, 0, round);
  MTEST_CHECK(ok, "allgather n %ld in_place %d", n, in_place);
  free(s.ints);
  free(r.ints);
}

/* Whether r holds, for each b, counts[b] elements from rank b (values of its block `block`)
 * at displs[b], each followed by an untouched gap element, and intact holes. */
static int holds_v(array *r, const int *counts, const int *displs, int block, int round) {
  int per = r->per, ok = holes(r);
  for (int b = 0; b < size; ++b) {
    for (long i = 0; i < counts[b] * per; ++i)
      ok &= *at(r, 0, displs[b] * per + i) == val(b, block, i, round);
    for (long i = 0; i < per; ++i) ok &= *at(r, 0, (displs[b] + counts[b]) * per + i) == HOLE;
  }
  return ok;
}

/* Rank b sends n + b % 3 elements (n = 0: b % 2), placed one element apart in recvbuf: blocks
 * of different sizes, some empty, and gaps that must stay untouched. */
static void allgatherv(MPI_Datatype t, long n, int in_place, int round) {
  int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
  long total = 0;
  for (int b = 0; b < size; ++b) {
    counts[b] = (int)(n ? n + b % 3 : b % 2);
    displs[b] = (int)total;
    total += counts[b] + 1;
  }
  array s = make(t, counts[rank], 1), r = make(t, total, 1);
  fill(&s, 0, rank, 0, round);
  int per = r.per;
  for (long i = 0; in_place && i < counts[rank] * per; ++i)
    *at(&r, 0, displs[rank] * per + i) = val(rank, 0, i, round);
  MPI_Allgatherv(in_place ? MPI_IN_PLACE : s.ints, counts[rank], t, r.ints, counts, displs, t,
                 MPI_COMM_WORLD);
  MTEST_CHECK(holds_v(&r, counts, displs, 0, round), "allgatherv n %ld in_place %d", n, in_place);
  free(s.ints);
  free(r.ints);
  free(counts);
  free(displs);
}

static void alltoall(MPI_Datatype t, long n, int in_place, int round) {
  array s = make(t, n, size), r = make(t, n, size);
  for (int b = 0; b < size; ++b) fill(in_place ? &r : &s, b, rank, b, round);
  MPI_Alltoall(in_place ? MPI_IN_PLACE : s.ints, (int)n, t, r.ints, (int)n, t, MPI_COMM_WORLD);
  int ok = holes(&r);
  for (int b = 0; b < size; ++b) ok &= holds(&r, b, b, rank, round);
  MTEST_CHECK(ok, "alltoall n %ld in_place %d", n, in_place);
  free(s.ints);
  free(r.ints);
}

/* Ranks i and j exchange n + (i + j) % 3 elements each way (n = 0: (i + j) % 2), each block one
 * element after the previous: blocks of different sizes, some empty, gaps left untouched. */
static int pair_count(int i, int j, long n) { return (int)(n ? n + (i + j) % 3 : (i + j) % 2); }
static void alltoallv(MPI_Datatype t, long n, int in_place, int round) {
  int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
  long total = 0;
  for (int b = 0; b < size; ++b) {
    counts[b] = pair_count(rank, b, n);
    displs[b] = (int)total;
    total += counts[b] + 1;
  }
  array s = make(t, total, 1), r = make(t, total, 1);
  int per = r.per;
  for (int b = 0; b < size; ++b)
    for (long i = 0; i < counts[b] * per; ++i)
      *at(in_place ? &r : &s, 0, displs[b] * per + i) = val(rank, b, i, round);
  MPI_Alltoallv(in_place ? MPI_IN_PLACE : s.ints, counts, displs, t, r.ints, counts, displs, t,
                MPI_COMM_WORLD);
  MTEST_CHECK(holds_v(&r, counts, displs, rank, round), "alltoallv n %ld in_place %d", n, in_place);
  free(s.ints);
  free(r.ints);
  free(counts);
  free(displs);
}

/* Send and receive types of different layouts (2n ints each way): a rank's own block goes
 * straight from one layout to the other. */
static void alltoall_mixed(long n, int strided_send, int round) {
  MPI_Datatype st = strided_send ? strided : MPI_INT, rt = strided_send ? MPI_INT : strided;
  long sn = strided_send ? n : 2 * n, rn = strided_send ? 2 * n : n;
  array s = make(st, sn, size), r = make(rt, rn, size);
  for (int b = 0; b < size; ++b) fill(&s, b, rank, b, round);
  MPI_Alltoall(s.ints, (int)sn, st, r.ints, (int)rn, rt, MPI_COMM_WORLD);
  int ok = holes(&r);
  for (int b = 0; b < size; ++b) ok &= holds(&r, b, b, rank, round);
  MTEST_CHECK(ok, "alltoall n %ld, strided %s", n, strided_send ? "send" : "receive");
  free(s.ints);
  free(r.ints);
}

static void gather(MPI_Datatype t, long n, int in_place, int round) {
  for (int root = 0; root < size; ++root) {
    int ip = in_place && rank == root;
    array s = make(t, n, 1), r = make(t, n, size);
    fill(&s, 0, rank, 0, round);
    if (ip) fill(&r, rank, rank, 0, round);
    MPI_Gather(ip ? MPI_IN_PLACE : s.ints, (int)n, t, r.ints, (int)n, t, root, MPI_COMM_WORLD);
    int ok = 1;
    for (int b = 0; rank == root && b < size; ++b) ok &= holds(&r, b, b, 0, round);
    MTEST_CHECK(ok && holes(&r), "gather n %ld root %d in_place %d", n, root, in_place);
    free(s.ints);
    free(r.ints);
  }
}

static void scatter(MPI_Datatype t, long n, int in_place, int round) {
  for (int root = 0; root < size; ++root) {
    int ip = in_place && rank == root;
    array s = make(t, n, size), r = make(t, n, 1);
    for (int b = 0; b < size; ++b) fill(&s, b, rank, b, round);
    MPI_Scatter(s.ints, (int)n, t, ip ? MPI_IN_PLACE : r.ints, (int)n, t, root, MPI_COMM_WORLD);
    int ok = ip ? r.ints[0] == HOLE || n == 0 : holds(&r, 0, root, rank, round);
    MTEST_CHECK(ok && holes(&r), "scatter n %ld root %d in_place %d", n, root, in_place);
    free(s.ints);
    free(r.ints);
  }
}

/* Blocks of different sizes as in allgatherv, gathered to and scattered from every root. */
static void v_layout(long n, int *counts, int *displs, long *total) {
  *total = 0;
  for (int b = 0; b < size; ++b) {
    counts[b] = (int)(n ? n + b % 3 : b % 2);
    displs[b] = (int)*total;
    *total += counts[b] + 1;
  }
}

static void gatherv(MPI_Datatype t, long n, int in_place, int round) {
  int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
  long total;
  v_layout(n, counts, displs, &total);
  for (int root = 0; root < size; ++root) {
    int ip = in_place && rank == root;
    array s = make(t, counts[rank], 1), r = make(t, total, 1);
    fill(&s, 0, rank, 0, round);
    for (long i = 0; ip && i < counts[rank] * r.per; ++i)
      *at(&r, 0, displs[rank] * r.per + i) = val(rank, 0, i, round);
    MPI_Gatherv(ip ? MPI_IN_PLACE : s.ints, counts[rank], t, r.ints, counts, displs, t, root,
                MPI_COMM_WORLD);
    int ok = rank != root || holds_v(&r, counts, displs, 0, round);
    MTEST_CHECK(ok && holes(&r), "gatherv n %ld root %d in_place %d", n, root, in_place);
    free(s.ints);
    free(r.ints);
  }
  free(counts);
  free(displs);
}

static void scatterv(MPI_Datatype t, long n, int in_place, int round) {
  int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
  long total;
  v_layout(n, counts, displs, &total);
  for (int root = 0; root < size; ++root) {
    int ip = in_place && rank == root;
    array s = make(t, total, 1), r = make(t, counts[rank] + 1, 1);
    for (int b = 0; b < size; ++b)
      for (long i = 0; i < counts[b] * s.per; ++i)
        *at(&s, 0, displs[b] * s.per + i) = val(rank, b, i, round);
    MPI_Scatterv(s.ints, counts, displs, t, ip ? MPI_IN_PLACE : r.ints, counts[rank], t, root,
                 MPI_COMM_WORLD);
    int ok = holes(&r);
    for (long i = 0; i < counts[rank] * r.per; ++i)
      ok &= *at(&r, 0, i) == (ip ? HOLE : val(root, rank, i, round));
    for (long i = 0; i < r.per; ++i) ok &= *at(&r, 0, counts[rank] * r.per + i) == HOLE;
    MTEST_CHECK(ok, "scatterv n %ld root %d in_place %d", n, root, in_place);
    free(s.ints);
    free(r.ints);
  }
  free(counts);
  free(displs);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Datatype vec;
  MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
  MPI_Type_create_resized(vec, 0, 16, &strided);
  MPI_Type_commit(&strided);
  MPI_Type_free(&vec);
  long counts[] = {0, 1, 7, 1024, 65536};
  MPI_Datatype types[] = {MPI_INT, strided};
  int round = 0;
  for (int c = 0; c < 5; ++c)
    for (int t = 0; t < 2; ++t)
      for (int in_place = 0; in_place <= 1; ++in_place, ++round) {
        if (!in_place) bcast(types[t], counts[c], round);
        allgather(types[t], counts[c], in_place, round);
        allgatherv(types[t], counts[c], in_place, round);
        alltoall(types[t], counts[c], in_place, round);
        alltoallv(types[t], counts[c], in_place, round);
        gather(types[t], counts[c], in_place, round);
        scatter(types[t], counts[c], in_place, round);
        gatherv(types[t], counts[c], in_place, round);
        scatterv(types[t], counts[c], in_place, round);
        if (t == 0 && !in_place) {
          alltoall_mixed(counts[c], 0, round);
          alltoall_mixed(counts[c], 1, round);
        }
      }
  MPI_Type_free(&strided);
  return mtest_finalize();
}
