/* MPI_Scatter, MPI_Scatterv and their nonblocking forms from every root: blocks of 0, 1, 7 and
 * 1024 ints (MPI_Scatterv: block i holds n + i % 3, with a gap between blocks), in place at
 * the root and not, and a receive type that differs from the send type. */
#include <stdlib.h>

#include "mtest.h"

static int rank, size;

static int ival(int root, int i) { return root * 100000 + i + 1; }

static int scatter(int form, int v, const void *s, int sc, const int *scs, const int *displs,
                   MPI_Datatype st, void *r, int rc_, MPI_Datatype rt, int root) {
  MPI_Request req;
  int rc;
  if (form == 0)
    return v ? MPI_Scatterv(s, scs, displs, st, r, rc_, rt, root, MPI_COMM_WORLD)
             : MPI_Scatter(s, sc, st, r, rc_, rt, root, MPI_COMM_WORLD);
  rc = v ? MPI_Iscatterv(s, scs, displs, st, r, rc_, rt, root, MPI_COMM_WORLD, &req)
         : MPI_Iscatter(s, sc, st, r, rc_, rt, root, MPI_COMM_WORLD, &req);
  return rc != MPI_SUCCESS ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

static void test(int form, int v, int n, int root, int in_place, int pairs) {
  int *counts = malloc(sizeof(int) * size), *displs = malloc(sizeof(int) * size), total = 0;
  for (int i = 0; i < size; ++i) {
    counts[i] = v ? n + i % 3 : n;
    displs[i] = total;
    total += counts[i] + (v ? 1 : 0);
  }
  int *s = malloc(sizeof(int) * (total + 1)), *r = malloc(sizeof(int) * (2 * counts[rank] + 1));
  for (int i = 0; i < total; ++i) s[i] = ival(root, i);
  for (int i = 0; i <= 2 * counts[rank]; ++i) r[i] = -1;
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  /* With pairs, the root sends ints and every rank receives half as many pairs (even counts). */
  int recvcount = counts[rank], use_pairs = pairs && n % 2 == 0 && !v;
  if (use_pairs) recvcount /= 2;
  int here = in_place && rank == root;
  int rc = scatter(form, v, s, n, counts, displs, MPI_INT, here ? MPI_IN_PLACE : r, recvcount,
                   use_pairs ? pair : MPI_INT, root);
  MTEST_CHECK(rc == MPI_SUCCESS, "rc %d", rc);
  if (here) {
    for (int i = 0; i < total; ++i) MTEST_CHECK(s[i] == ival(root, i), "sendbuf changed");
  } else {
    for (int k = 0; k < counts[rank]; ++k) {
      if (r[k] != ival(root, displs[rank] + k)) {
        MTEST_CHECK(0, "form %d v %d n %d root %d in_place %d pairs %d: [%d] = %d", form, v, n,
                    root, in_place, pairs, k, r[k]);
        break;
      }
    }
    MTEST_CHECK(r[counts[rank]] == -1, "form %d v %d n %d root %d pairs %d: wrote past the block",
                form, v, n, root, pairs);
  }
  MPI_Type_free(&pair);
  free(counts), free(displs), free(s), free(r);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int counts[] = {0, 1, 8, 1024};
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
