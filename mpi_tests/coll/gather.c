/* MPI_Gather, MPI_Gatherv and their nonblocking forms to every root: blocks of 0, 1, 7 and 1024
 * ints (MPI_Gatherv: rank i sends n + i % 3, placed with a gap between blocks), in place at the
 * root and not, and a send type that differs from the receive type (a contiguous pair of ints
 * received as two ints). */
#include <stdlib.h>

#include "mtest.h"

static int rank, size;

static int ival(int r, int i) { return r * 10000 + i + 1; }

static int gather(int form, int v, const void *s, int sc, MPI_Datatype st, void *r, int rc_,
                  const int *rcs, const int *displs, MPI_Datatype rt, int root) {
  MPI_Request req;
  int rc;
  if (form == 0)
    return v ? MPI_Gatherv(s, sc, st, r, rcs, displs, rt, root, MPI_COMM_WORLD)
             : MPI_Gather(s, sc, st, r, rc_, rt, root, MPI_COMM_WORLD);
  rc = v ? MPI_Igatherv(s, sc, st, r, rcs, displs, rt, root, MPI_COMM_WORLD, &req)
         : MPI_Igather(s, sc, st, r, rc_, rt, root, MPI_COMM_WORLD, &req);
  return rc != MPI_SUCCESS ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static void test(int form, int v, int n, int root, int in_place, int pairs) {
  int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size), total = 0;
  for (int i = 0; i < size; ++i) {
    counts[i] = v ? n + i % 3 : n;
    displs[i] = total;
    total += counts[i] + (v ? 1 : 0);
  }
  if (pairs) /* send pairs, receive ints: counts double on the receive side */
    for (int i = 0; i < size; ++i) counts[i] *= 2, displs[i] *= 2;
  int mine = pairs ? counts[rank] / 2 : counts[rank];
  int *s = malloc(sizeof(int) * (counts[rank] + 1)), *r = malloc(sizeof(int) * (2 * total + 1));
  for (int i = 0; i < counts[rank]; ++i) s[i] = ival(rank, i);
  for (int i = 0; i < 2 * total; ++i) r[i] = -1;
  int here = in_place && rank == root;
  if (here)
    for (int i = 0; i < counts[rank]; ++i) r[displs[rank] + i] = ival(rank, i);
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  int rc = gather(form, v, here ? MPI_IN_PLACE : s, mine, pairs ? pair : MPI_INT, r, counts[0],
                  counts, displs, MPI_INT, root);
  MTEST_CHECK(rc == MPI_SUCCESS, "rc %d", rc);
  for (int i = 0; rank == root && i < size; ++i) {
    for (int k = 0; k < counts[i]; ++k) {
      if (r[displs[i] + k] != ival(i, k)) {
        MTEST_CHECK(0, "form %d v %d n %d root %d in_place %d pairs %d: block %d [%d] = %d", form,
                    v, n, root, in_place, pairs, i, k, r[displs[i] + k]);
        break;
      }
    }
    if (v) MTEST_CHECK(r[displs[i] + counts[i]] == -1, "gap after block %d written", i);
  }
  MPI_Type_free(&pair);
  free(counts), free(displs), free(s), free(r);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int counts[] = {0, 1, 7, 1024};
  for (int form = 0; form < 2; ++form)
    for (int v = 0; v < 2; ++v)
      for (int c = 0; c < 4; ++c)
        for (int root = 0; root < size; ++root) {
          test(form, v, counts[c], root, 0, 0);
          test(form, v, counts[c], root, 1, 0);
          test(form, v, counts[c], root, 0, 1);
        }
  return mtest_finalize();
}
