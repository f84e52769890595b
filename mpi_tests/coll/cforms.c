/* The large-count _c forms of the collectives (MPI_Count counts, MPI_Aint displacements), each
 * blocking, nonblocking and persistent, with real data: they must agree with the int forms. */
#include <stdlib.h>

#include "mtest.h"

#define N 300

static int rank, size;

/* Runs the blocking form, or the nonblocking or persistent one (form 1, 2) to completion. */
static void finish(int form, int rc, MPI_Request *req, const char *what) {
  MTEST_CHECK(rc == MPI_SUCCESS, "%s form %d: rc %d", what, form, rc);
  if (form == 0 || rc != MPI_SUCCESS) return;
  if (form == 2) MPI_Start(req);
  MPI_Wait(req, MPI_STATUS_IGNORE);
  if (form == 2) MPI_Request_free(req);
}

static void expect(const char *what, int form, const int *got, const int *want, int n) {
  for (int i = 0; i < n; ++i)
    if (got[i] != want[i]) {
      MTEST_CHECK(0, "%s form %d: [%d] = %d, expected %d", what, form, i, got[i], want[i]);
      return;
    }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm w = MPI_COMM_WORLD;
  MPI_Info in = MPI_INFO_NULL;
  int *s = malloc(sizeof(int) * N * size), *r = malloc(sizeof(int) * N * size);
  int *want = malloc(sizeof(int) * N * size);
  MPI_Count *counts = malloc(sizeof(MPI_Count) * size);
  MPI_Aint *displs = malloc(sizeof(MPI_Aint) * size), *bytes = malloc(sizeof(MPI_Aint) * size);
  MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * size);
  for (int i = 0; i < size; ++i)
    counts[i] = N, displs[i] = (MPI_Aint)i * N, bytes[i] = displs[i] * 4, types[i] = MPI_INT;
  int root = size / 2;
  for (int form = 0; form < 3; ++form) {
    MPI_Request q;
    MPI_Request *rq = &q;
#define RUN(blocking, nonblocking, persistent, what)                    \
  for (int i = 0; i < N * size; ++i) s[i] = rank * 1000 + i, r[i] = -1; \
  finish(form, form == 0 ? (blocking) : form == 1 ? (nonblocking) : (persistent), rq, what)
    RUN(MPI_Bcast_c(s, N, MPI_INT, root, w), MPI_Ibcast_c(s, N, MPI_INT, root, w, rq),
        MPI_Bcast_init_c(s, N, MPI_INT, root, w, in, rq), "bcast");
    for (int i = 0; i < N; ++i) want[i] = root * 1000 + i;
    expect("bcast", form, s, want, N);
    RUN(MPI_Allreduce_c(s, r, N, MPI_INT, MPI_SUM, w),
        MPI_Iallreduce_c(s, r, N, MPI_INT, MPI_SUM, w, rq),
        MPI_Allreduce_init_c(s, r, N, MPI_INT, MPI_SUM, w, in, rq), "allreduce");
    for (int i = 0; i < N; ++i) want[i] = 1000 * size * (size - 1) / 2 + size * i;
    expect("allreduce", form, r, want, N);
    RUN(MPI_Reduce_c(s, r, N, MPI_INT, MPI_MAX, root, w),
        MPI_Ireduce_c(s, r, N, MPI_INT, MPI_MAX, root, w, rq),
        MPI_Reduce_init_c(s, r, N, MPI_INT, MPI_MAX, root, w, in, rq), "reduce");
    for (int i = 0; i < N; ++i) want[i] = (size - 1) * 1000 + i;
    if (rank == root) expect("reduce", form, r, want, N);
    RUN(MPI_Scan_c(s, r, N, MPI_INT, MPI_MAX, w), MPI_Iscan_c(s, r, N, MPI_INT, MPI_MAX, w, rq),
        MPI_Scan_init_c(s, r, N, MPI_INT, MPI_MAX, w, in, rq), "scan");
    for (int i = 0; i < N; ++i) want[i] = rank * 1000 + i;
    expect("scan", form, r, want, N);
    RUN(MPI_Exscan_c(s, r, N, MPI_INT, MPI_MAX, w), MPI_Iexscan_c(s, r, N, MPI_INT, MPI_MAX, w, rq),
        MPI_Exscan_init_c(s, r, N, MPI_INT, MPI_MAX, w, in, rq), "exscan");
    for (int i = 0; i < N; ++i) want[i] = (rank - 1) * 1000 + i;
    if (rank > 0) expect("exscan", form, r, want, N);
    RUN(MPI_Reduce_scatter_block_c(s, r, N, MPI_INT, MPI_MAX, w),
        MPI_Ireduce_scatter_block_c(s, r, N, MPI_INT, MPI_MAX, w, rq),
        MPI_Reduce_scatter_block_init_c(s, r, N, MPI_INT, MPI_MAX, w, in, rq), "rs_block");
    for (int i = 0; i < N; ++i) want[i] = (size - 1) * 1000 + rank * N + i;
    expect("reduce_scatter_block", form, r, want, N);
    RUN(MPI_Reduce_scatter_c(s, r, counts, MPI_INT, MPI_MAX, w),
        MPI_Ireduce_scatter_c(s, r, counts, MPI_INT, MPI_MAX, w, rq),
        MPI_Reduce_scatter_init_c(s, r, counts, MPI_INT, MPI_MAX, w, in, rq), "rs");
    expect("reduce_scatter", form, r, want, N);
    for (int q = 0; q < size; ++q)
      for (int i = 0; i < N; ++i) want[q * N + i] = q * 1000 + i;
    RUN(MPI_Gather_c(s, N, MPI_INT, r, N, MPI_INT, root, w),
        MPI_Igather_c(s, N, MPI_INT, r, N, MPI_INT, root, w, rq),
        MPI_Gather_init_c(s, N, MPI_INT, r, N, MPI_INT, root, w, in, rq), "gather");
    if (rank == root) expect("gather", form, r, want, N * size);
    RUN(MPI_Gatherv_c(s, N, MPI_INT, r, counts, displs, MPI_INT, root, w),
        MPI_Igatherv_c(s, N, MPI_INT, r, counts, displs, MPI_INT, root, w, rq),
        MPI_Gatherv_init_c(s, N, MPI_INT, r, counts, displs, MPI_INT, root, w, in, rq), "gatherv");
    if (rank == root) expect("gatherv", form, r, want, N * size);
    RUN(MPI_Allgather_c(s, N, MPI_INT, r, N, MPI_INT, w),
        MPI_Iallgather_c(s, N, MPI_INT, r, N, MPI_INT, w, rq),
        MPI_Allgather_init_c(s, N, MPI_INT, r, N, MPI_INT, w, in, rq), "allgather");
    expect("allgather", form, r, want, N * size);
    RUN(MPI_Allgatherv_c(s, N, MPI_INT, r, counts, displs, MPI_INT, w),
        MPI_Iallgatherv_c(s, N, MPI_INT, r, counts, displs, MPI_INT, w, rq),
        MPI_Allgatherv_init_c(s, N, MPI_INT, r, counts, displs, MPI_INT, w, in, rq), "allgatherv");
    expect("allgatherv", form, r, want, N * size);
    for (int i = 0; i < N; ++i) want[i] = root * 1000 + rank * N + i;
    RUN(MPI_Scatter_c(s, N, MPI_INT, r, N, MPI_INT, root, w),
        MPI_Iscatter_c(s, N, MPI_INT, r, N, MPI_INT, root, w, rq),
        MPI_Scatter_init_c(s, N, MPI_INT, r, N, MPI_INT, root, w, in, rq), "scatter");
    expect("scatter", form, r, want, N);
    RUN(MPI_Scatterv_c(s, counts, displs, MPI_INT, r, N, MPI_INT, root, w),
        MPI_Iscatterv_c(s, counts, displs, MPI_INT, r, N, MPI_INT, root, w, rq),
        MPI_Scatterv_init_c(s, counts, displs, MPI_INT, r, N, MPI_INT, root, w, in, rq),
        "scatterv");
    expect("scatterv", form, r, want, N);
    for (int q = 0; q < size; ++q)
      for (int i = 0; i < N; ++i) want[q * N + i] = q * 1000 + rank * N + i;
    RUN(MPI_Alltoall_c(s, N, MPI_INT, r, N, MPI_INT, w),
        MPI_Ialltoall_c(s, N, MPI_INT, r, N, MPI_INT, w, rq),
        MPI_Alltoall_init_c(s, N, MPI_INT, r, N, MPI_INT, w, in, rq), "alltoall");
    expect("alltoall", form, r, want, N * size);
    RUN(MPI_Alltoallv_c(s, counts, displs, MPI_INT, r, counts, displs, MPI_INT, w),
        MPI_Ialltoallv_c(s, counts, displs, MPI_INT, r, counts, displs, MPI_INT, w, rq),
        MPI_Alltoallv_init_c(s, counts, displs, MPI_INT, r, counts, displs, MPI_INT, w, in, rq),
        "alltoallv");
    expect("alltoallv", form, r, want, N * size);
    RUN(MPI_Alltoallw_c(s, counts, bytes, types, r, counts, bytes, types, w),
        MPI_Ialltoallw_c(s, counts, bytes, types, r, counts, bytes, types, w, rq),
        MPI_Alltoallw_init_c(s, counts, bytes, types, r, counts, bytes, types, w, in, rq),
        "alltoallw");
    expect("alltoallw", form, r, want, N * size);
#undef RUN
  }
  free(s), free(r), free(want), free(counts), free(displs), free(bytes), free(types);
  return mtest_finalize();
}
