/* MPI_Allgather, MPI_Allgatherv and their nonblocking forms: blocks of 0, 1, 7, 1024 (and 128K
 * with MTEST_LARGE=1) ints (MPI_Allgatherv: rank i sends n + i % 3, placed with a gap between
 * blocks), in place and not, and a vector type with gaps on the receive side. */
#include <stdlib.h>

#include "mtest.h"

static int rank, size;

static int ival(int r, int i) { return r * 100000 + i % 99991 + 1; }

static int allgather(int form, int v, const void *s, int sc, MPI_Datatype st, void *r, int rc_,
                     const int *rcs, const int *displs, MPI_Datatype rt) {
  MPI_Request req;
  int rc;
  if (form == 0)
    return v ? MPI_Allgatherv(s, sc, st, r, rcs, displs, rt, MPI_COMM_WORLD)
             : MPI_Allgather(s, sc, st, r, rc_, rt, MPI_COMM_WORLD);
  rc = v ? MPI_Iallgatherv(s, sc, st, r, rcs, displs, rt, MPI_COMM_WORLD, &req)
         : MPI_Iallgather(s, sc, st, r, rc_, rt, MPI_COMM_WORLD, &req);
  return rc != MPI_SUCCESS ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

/* gapped: the receive type is MPI_Type_vector(2, 1, 2, MPI_INT) and ints are sent in pairs. */
static void test(int form, int v, int n, int in_place, int gapped) {
  int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size), total = 0;
  for (int i = 0; i < size; ++i) {
    counts[i] = v ? n + i % 3 : n;
    displs[i] = total;
    total += counts[i] + (v ? 1 : 0);
  }
  int per = gapped ? 2 : 1, unit = gapped ? 3 : 1; /* ints per element; storage per element */
  int *s = malloc(sizeof(int) * (per * counts[rank] + 1));
  int *r = malloc(sizeof(int) * (unit * total + 1));
  for (int i = 0; i < per * counts[rank]; ++i) s[i] = ival(rank, i);
  for (int i = 0; i < unit * total; ++i) r[i] = -1;
  if (in_place)
    for (int e = 0; e < counts[rank]; ++e)
      for (int k = 0; k < per; ++k) r[(displs[rank] + e) * unit + 2 * k] = ival(rank, e * per + k);
  MPI_Datatype vec;
  MPI_Type_vector(2, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  int rc = allgather(form, v, in_place ? MPI_IN_PLACE : s, per * counts[rank], MPI_INT, r, n,
                     counts, displs, gapped ? vec : MPI_INT);
  MTEST_CHECK(rc == MPI_SUCCESS, "rc %d", rc);
  int bad = 0;
  for (int i = 0; i < size && !bad; ++i)
    for (int e = 0; e < counts[i] && !bad; ++e)
      for (int k = 0; k < per; ++k) {
        int at = (displs[i] + e) * unit + 2 * k;
        if (r[at] != ival(i, e * per + k)) {
          MTEST_CHECK(0, "form %d v %d n %d in_place %d gapped %d: block %d element %d = %d", form,
                      v, n, in_place, gapped, i, e, r[at]);
          bad = 1;
          break;
        }
      }
  for (int i = 1; gapped && i < unit * total; i += 3)
    if (r[i] != -1) {
      MTEST_CHECK(0, "form %d v %d n %d: the gap at int %d was written", form, v, n, i);
      break;
    }
  MPI_Type_free(&vec);
  free(counts), free(displs), free(s), free(r);
}

/* The same MPI_Allgatherv call three times with the same buffers and array pointers, the
 * displacements changed in place in between (blocks in rank order, reversed, in order again):
 * a call repeated with other array values must place the blocks where the new values say. */
static void repeat_with_changed_displs(void) {
  int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size);
  int *r = malloc(sizeof(int) * 2 * size), s[2] = {ival(rank, 0), ival(rank, 1)};
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < size; ++i) {
      counts[i] = 2;
      displs[i] = 2 * (round == 1 ? size - 1 - i : i);
    }
    for (int i = 0; i < 2 * size; ++i) r[i] = -1;
    int rc = MPI_Allgatherv(s, 2, MPI_INT, r, counts, displs, MPI_INT, MPI_COMM_WORLD);
    MTEST_CHECK(rc == MPI_SUCCESS, "repeat round %d: rc %d", round, rc);
    for (int i = 0; i < size; ++i)
      for (int k = 0; k < 2; ++k)
        if (r[displs[i] + k] != ival(i, k)) {
          MTEST_CHECK(0, "repeat round %d: block %d int %d = %d", round, i, k, r[displs[i] + k]);
          i = size;
          break;
        }
  }
  free(counts), free(displs), free(r);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int counts[] = {0, 1, 7, 1024, 1 << 17};
  int ncounts = getenv("MTEST_LARGE") ? 5 : 4;
  for (int form = 0; form < 2; ++form)
    for (int v = 0; v < 2; ++v)
      for (int c = 0; c < ncounts; ++c) {
        test(form, v, counts[c], 0, 0);
        test(form, v, counts[c], 1, 0);
        if (counts[c] <= 1024) test(form, v, counts[c], 0, 1);
      }
  repeat_with_changed_displs();
  return mtest_finalize();
}
