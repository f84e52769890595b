/* The v and w collectives and the reduce_scatters on an intercommunicator of the even and the
 * odd ranks of MPI_COMM_WORLD, each result checked element by element: gatherv and scatterv
 * (remote rank r moves r + 1 ints, placed in reverse order), allgatherv, alltoallv, alltoallw
 * (a strided datatype for some pairs), reduce_scatter_block and reduce_scatter (each group gets
 * the other group's sum, its vector cut by its own counts). A scan on the intercommunicator
 * fails with MPI_ERR_COMM (the standard defines none there); vectors of different lengths in
 * the two groups make both leaders fail with MPI_ERR_TRUNCATE, and nobody hangs. */
#include <stdlib.h>

#include "mtest.h"

static int rank, size, color, lrank, lsize, rsize;
static MPI_Comm inter;

static int world_of(int c, int r) { return 2 * r + c; }

static int root_arg(int root_color, int root) {
  if (color != root_color) return root;
  return lrank == root ? MPI_ROOT : MPI_PROC_NULL;
}

/* Blocks of r + 1 ints per remote rank r, the last rank's first: displacements in ints. */
static int layout(int n, int *counts, int *displs) {
  int at = 0;
  for (int r = n - 1; r >= 0; --r) {
    counts[r] = r + 1;
    displs[r] = at;
    at += r + 1 + 1; /* one int of gap */
  }
  return at;
}

static void gatherv_scatterv(void) {
  int counts[64], displs[64], mine[64];
  int total = layout(rsize, counts, displs);
  int *all = malloc(sizeof(int) * (size_t)total);
  for (int i = 0; i < total; ++i) all[i] = -1;
  for (int i = 0; i <= lrank; ++i) mine[i] = rank * 100 + i;
  /* The odds' rank 0 gathers the evens'; evens send lrank + 1 ints. */
  MPI_Gatherv(mine, lrank + 1, MPI_INT, all, counts, displs, MPI_INT, root_arg(1, 0), inter);
  if (color == 1 && lrank == 0) {
    for (int r = 0; r < rsize; ++r)
      for (int i = 0; i <= r; ++i)
        MTEST_CHECK(all[displs[r] + i] == world_of(0, r) * 100 + i, "gatherv from %d [%d] = %d", r,
                    i, all[displs[r] + i]);
  }
  /* The evens' last rank scatters to the odds: odd rank j gets j + 1 ints. */
  for (int i = 0; i < total; ++i) all[i] = 7000 + i;
  int got[64];
  for (int i = 0; i < 64; ++i) got[i] = -1;
  int root = color == 0 ? root_arg(0, lsize - 1) : rsize - 1;
  MPI_Scatterv(all, counts, displs, MPI_INT, got, lrank + 1, MPI_INT, root, inter);
  if (color == 1) {
    int expect_displ = 0;
    for (int r = lsize - 1; r > lrank; --r) expect_displ += r + 2;
    for (int i = 0; i <= lrank; ++i)
      MTEST_CHECK(got[i] == 7000 + expect_displ + i, "scatterv [%d] = %d", i, got[i]);
    MTEST_CHECK(got[lrank + 1] == -1, "scatterv wrote past its count");
  }
  free(all);
}

static void allgatherv_alltoallv(void) {
  int counts[64], displs[64], mine[64], scounts[64], sdispls[64];
  int total = layout(rsize, counts, displs);
  int *all = malloc(sizeof(int) * (size_t)total);
  for (int i = 0; i < total; ++i) all[i] = -1;
  for (int i = 0; i <= lrank; ++i) mine[i] = rank * 100 + i;
  MPI_Allgatherv(mine, lrank + 1, MPI_INT, all, counts, displs, MPI_INT, inter);
  for (int r = 0; r < rsize; ++r)
    for (int i = 0; i <= r; ++i)
      MTEST_CHECK(all[displs[r] + i] == world_of(1 - color, r) * 100 + i,
                  "allgatherv from %d [%d] = %d", r, i, all[displs[r] + i]);
  /* alltoallv: to remote rank r, lrank + 1 ints; from remote r, r + 1 ints. */
  int *out = malloc(sizeof(int) * (size_t)(rsize * (lrank + 1)));
  for (int r = 0; r < rsize; ++r) {
    scounts[r] = lrank + 1;
    sdispls[r] = r * (lrank + 1);
    for (int i = 0; i <= lrank; ++i) out[sdispls[r] + i] = rank * 1000 + r * 10 + i;
  }
  for (int i = 0; i < total; ++i) all[i] = -1;
  MPI_Alltoallv(out, scounts, sdispls, MPI_INT, all, counts, displs, MPI_INT, inter);
  for (int r = 0; r < rsize; ++r)
    for (int i = 0; i <= r; ++i)
      MTEST_CHECK(all[displs[r] + i] == world_of(1 - color, r) * 1000 + lrank * 10 + i,
                  "alltoallv from %d [%d] = %d", r, i, all[displs[r] + i]);
  free(out);
  free(all);
}

/* alltoallw: 2 ints per pair; to/from odd remote ranks as one strided element (every other
 * int of 3), else as 2 MPI_INTs; byte displacements. */
static void alltoallw(void) {
  MPI_Datatype pair;
  MPI_Type_vector(2, 1, 2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  int n = rsize, sc[64], sd[64], rc[64], rd[64];
  MPI_Datatype st[64], rt[64];
  int *out = malloc(sizeof(int) * (size_t)(4 * n)), *in = malloc(sizeof(int) * (size_t)(4 * n));
  for (int r = 0; r < n; ++r) {
    int strided = r % 2;
    sc[r] = rc[r] = strided ? 1 : 2;
    st[r] = rt[r] = strided ? pair : MPI_INT;
    sd[r] = rd[r] = (int)(4 * r * sizeof(int));
    out[4 * r] = rank * 100 + r;
    out[4 * r + 1 + strided] = rank * 100 + 50 + r;
  }
  for (int i = 0; i < 4 * n; ++i) in[i] = -1;
  MPI_Alltoallw(out, sc, sd, st, in, rc, rd, rt, inter);
  for (int r = 0; r < n; ++r) {
    int strided = r % 2, from = world_of(1 - color, r);
    MTEST_CHECK(in[4 * r] == from * 100 + lrank, "alltoallw from %d first = %d", r, in[4 * r]);
    MTEST_CHECK(in[4 * r + 1 + strided] == from * 100 + 50 + lrank, "alltoallw from %d second = %d",
                r, in[4 * r + 1 + strided]);
    if (strided) MTEST_CHECK(in[4 * r + 1] == -1, "alltoallw wrote into the stride's gap");
  }
  MPI_Type_free(&pair);
  free(out);
  free(in);
}

static int sum_of_world(int c) {
  int s = 0, n = c == 0 ? (size + 1) / 2 : size / 2;
  for (int r = 0; r < n; ++r) s += world_of(c, r);
  return s;
}

/* Both groups' vectors hold 2 * lsize * rsize ints: v[i] = rank * 1000 + i. */
static void reduce_scatters(void) {
  int total = 2 * lsize * rsize, counts[64];
  int *v = malloc(sizeof(int) * (size_t)total), *got = malloc(sizeof(int) * (size_t)total);
  for (int i = 0; i < total; ++i) v[i] = rank * 1000 + i;
  int block = total / lsize, other = sum_of_world(1 - color);
  for (int i = 0; i < total; ++i) got[i] = -1;
  MPI_Reduce_scatter_block(v, got, block, MPI_INT, MPI_SUM, inter);
  for (int i = 0; i < block; ++i) {
    int at = lrank * block + i;
    MTEST_CHECK(got[i] == other * 1000 + rsize * at, "reduce_scatter_block [%d] = %d", i, got[i]);
  }
  /* recvcounts 1, 2, ... and the rest to the last rank. */
  int used = 0;
  for (int j = 0; j < lsize - 1; ++j) used += counts[j] = j + 1;
  counts[lsize - 1] = total - used;
  for (int i = 0; i < total; ++i) got[i] = -1;
  MPI_Reduce_scatter(v, got, counts, MPI_INT, MPI_SUM, inter);
  int first = 0;
  for (int j = 0; j < lrank; ++j) first += counts[j];
  for (int i = 0; i < counts[lrank]; ++i) {
    int at = first + i;
    MTEST_CHECK(got[i] == other * 1000 + rsize * at, "reduce_scatter [%d] = %d", i, got[i]);
  }
  free(v);
  free(got);
}

static void refusals(void) {
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  int x = 1, y = 0;
  int rc = MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, inter);
  mtest_expect_error(rc, MPI_ERR_COMM, "MPI_Scan on an intercommunicator", "intercommunicator");
  /* The groups' vectors differ in length (1 x evens, 3 x odds): each leader reports it, and
   * no member waits for a leader that left. */
  int v[64] = {0}, got[64];
  rc = MPI_Reduce_scatter_block(v, got, color == 0 ? 1 : 3, MPI_INT, MPI_SUM, inter);
  if (lrank == 0) {
    MTEST_CHECK(rc != MPI_SUCCESS, "MPI_Reduce_scatter_block of vectors of two lengths succeeded");
    mtest_expect_success_or(rc, MPI_ERR_TRUNCATE, MPI_ERR_ARG,
                            "MPI_Reduce_scatter_block, vectors of two lengths", "bytes");
  }
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2 || size > 64) {
    MTEST_CHECK(0, "needs 2 to 64 processes, not %d", size);
    return mtest_finalize();
  }
  color = rank % 2;
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 3, &inter);
  MPI_Comm_rank(inter, &lrank);
  MPI_Comm_size(inter, &lsize);
  MPI_Comm_remote_size(inter, &rsize);
  gatherv_scatterv();
  allgatherv_alltoallv();
  alltoallw();
  reduce_scatters();
  refusals();
  MPI_Barrier(inter);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  return mtest_finalize();
}
