/* Collectives on device buffers, every result checked against values computed on the host
 * (label gpu; 2 and 4 ranks): every collective, blocking, nonblocking (I...), persistent
 * (..._init) and large-count (_c) forms, MPI_IN_PLACE, a derived datatype, and
 * MPIX_Query_cuda_path's answers for them. Built when the library has the collectives
 * (tests/cuda/CMakeLists.txt checks mpi_proto.h). */
#include "cuda_util.h"

enum { kCount = 100003, kBlock = 1031 };

static int g_rank, g_size;

/* A device buffer of n ints, element i = f(i). */
static int *dev_ints(size_t n, int (*f)(size_t, int), int arg) {
  int *host = (int *)malloc((n ? n : 1) * sizeof(int));
  for (size_t i = 0; i < n; ++i) host[i] = f(i, arg);
  int *dev = NULL;
  CUDA_CHECK(cudaMalloc((void **)&dev, (n ? n : 1) * sizeof(int)));
  CUDA_CHECK(cudaMemcpy(dev, host, n * sizeof(int), cudaMemcpyHostToDevice));
  free(host);
  return dev;
}

/* Elements of the device buffer that differ from want(i, arg). */
static int wrong_ints(const int *dev, size_t n, int (*want)(size_t, int), int arg) {
  int *host = (int *)malloc((n ? n : 1) * sizeof(int));
  CUDA_CHECK(cudaMemcpy(host, dev, n * sizeof(int), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (size_t i = 0; i < n; ++i) wrong += host[i] != want(i, arg);
  free(host);
  return wrong;
}

static int value(size_t i, int rank) { return (int)(i % 1000) + rank; }
static int filler(size_t i, int x) { (void)i; return x; }
/* Sum over ranks r < upto of value(i, r). */
static int sum_below(size_t i, int upto) { return (int)(i % 1000) * upto + upto * (upto - 1) / 2; }
static int sum_all(size_t i, int unused) { (void)unused; return sum_below(i, g_size); }
static int max_all(size_t i, int unused) { (void)unused; return value(i, g_size - 1); }
/* Block layout: element i belongs to rank i / kBlock. */
static int blocked(size_t i, int unused) { (void)unused; return (int)(i / kBlock) * 1000 + (int)(i % kBlock); }
static int own_block(size_t i, int rank) { return rank * 1000 + (int)i; }

static void check_reductions(void) {
  int *send = dev_ints(kCount, value, g_rank);
  int *recv = dev_ints(kCount, filler, -1);
  MPI_Allreduce(send, recv, kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MTEST_CHECK(wrong_ints(recv, kCount, sum_all, 0) == 0, "MPI_Allreduce(MPI_SUM) wrong");
  MPI_Request req;
  MPI_Iallreduce(send, recv, kCount, MPI_INT, MPI_MAX, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MTEST_CHECK(wrong_ints(recv, kCount, max_all, 0) == 0, "MPI_Iallreduce(MPI_MAX) wrong");
  MPI_Allreduce_init(send, recv, kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  for (int round = 0; round < 3; ++round) {
    CUDA_CHECK(cudaMemset(recv, 0, kCount * sizeof(int)));
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MTEST_CHECK(wrong_ints(recv, kCount, sum_all, 0) == 0, "MPI_Allreduce_init round %d", round);
  }
  MPI_Request_free(&req);
  MPI_Allreduce_c(MPI_IN_PLACE, send, (MPI_Count)kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MTEST_CHECK(wrong_ints(send, kCount, sum_all, 0) == 0, "in-place MPI_Allreduce_c wrong");
  CUDA_CHECK(cudaFree(send));
  send = dev_ints(kCount, value, g_rank);
  /* Reduce and the scans have no device algorithm: staged. */
  for (int root = 0; root < g_size; ++root) {
    CUDA_CHECK(cudaMemset(recv, 0, kCount * sizeof(int)));
    MPI_Reduce(send, recv, kCount, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
    if (g_rank == root)
      MTEST_CHECK(wrong_ints(recv, kCount, sum_all, 0) == 0, "MPI_Reduce to %d wrong", root);
  }
  MPI_Scan(send, recv, kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MTEST_CHECK(wrong_ints(recv, kCount, sum_below, g_rank + 1) == 0, "MPI_Scan wrong");
  MPI_Exscan(send, recv, kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank > 0)
    MTEST_CHECK(wrong_ints(recv, kCount, sum_below, g_rank) == 0, "MPI_Exscan wrong");
  CUDA_CHECK(cudaFree(send));
  CUDA_CHECK(cudaFree(recv));
}

static void check_reduce_scatter(void) {
  size_t n = (size_t)kBlock * g_size;
  int *send = dev_ints(n, value, g_rank);
  int *recv = dev_ints(kBlock, filler, -1);
  MPI_Reduce_scatter_block(send, recv, kBlock, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int *host = (int *)malloc(kBlock * sizeof(int));
  CUDA_CHECK(cudaMemcpy(host, recv, kBlock * sizeof(int), cudaMemcpyDeviceToHost));
  int wrong = 0;
  for (size_t i = 0; i < kBlock; ++i) wrong += host[i] != sum_below((size_t)g_rank * kBlock + i, g_size);
  MTEST_CHECK(wrong == 0, "MPI_Reduce_scatter_block: %d wrong", wrong);
  int *counts = (int *)malloc(g_size * sizeof(int));
  for (int r = 0; r < g_size; ++r) counts[r] = kBlock;
  MPI_Reduce_scatter(MPI_IN_PLACE, send, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  CUDA_CHECK(cudaMemcpy(host, send, kBlock * sizeof(int), cudaMemcpyDeviceToHost));
  wrong = 0;
  for (size_t i = 0; i < kBlock; ++i) wrong += host[i] != sum_below((size_t)g_rank * kBlock + i, g_size);
  MTEST_CHECK(wrong == 0, "in-place MPI_Reduce_scatter: %d wrong", wrong);
  free(counts);
  free(host);
  CUDA_CHECK(cudaFree(send));
  CUDA_CHECK(cudaFree(recv));
}

static void check_movement(void) {
  size_t n = (size_t)kBlock * g_size;
  int *mine = dev_ints(kBlock, own_block, g_rank);
  int *all = dev_ints(n, filler, -1);
  for (int root = 0; root < g_size; ++root) {
    int *buf = dev_ints(kCount, value, g_rank == root ? 7 : -5);
    MPI_Bcast(buf, kCount, MPI_INT, root, MPI_COMM_WORLD);
    MTEST_CHECK(wrong_ints(buf, kCount, value, 7) == 0, "MPI_Bcast from %d wrong", root);
    CUDA_CHECK(cudaFree(buf));
    MPI_Gather(mine, kBlock, MPI_INT, all, kBlock, MPI_INT, root, MPI_COMM_WORLD);
    if (g_rank == root) MTEST_CHECK(wrong_ints(all, n, blocked, 0) == 0, "MPI_Gather wrong");
    CUDA_CHECK(cudaMemset(mine, 0, kBlock * sizeof(int)));
    MPI_Scatter(all, kBlock, MPI_INT, mine, kBlock, MPI_INT, root, MPI_COMM_WORLD);
    MTEST_CHECK(wrong_ints(mine, kBlock, own_block, g_rank) == 0, "MPI_Scatter wrong");
  }
  CUDA_CHECK(cudaMemset(all, 0, n * sizeof(int)));
  MPI_Request req;
  MPI_Iallgather(mine, kBlock, MPI_INT, all, kBlock, MPI_INT, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MTEST_CHECK(wrong_ints(all, n, blocked, 0) == 0, "MPI_Iallgather wrong");
  /* In place: this rank's block is already there. */
  int *in_place = dev_ints(n, filler, 0);
  CUDA_CHECK(cudaMemcpy(in_place + (size_t)g_rank * kBlock, mine, kBlock * sizeof(int),
                        cudaMemcpyDeviceToDevice));
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, in_place, kBlock, MPI_INT, MPI_COMM_WORLD);
  MTEST_CHECK(wrong_ints(in_place, n, blocked, 0) == 0, "in-place MPI_Allgather wrong");
  int *counts = (int *)malloc(g_size * sizeof(int)), *displs = (int *)malloc(g_size * sizeof(int));
  for (int r = 0; r < g_size; ++r) counts[r] = kBlock, displs[r] = r * kBlock;
  CUDA_CHECK(cudaMemset(all, 0, n * sizeof(int)));
  MPI_Allgatherv(mine, kBlock, MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD);
  MTEST_CHECK(wrong_ints(all, n, blocked, 0) == 0, "MPI_Allgatherv wrong");
  CUDA_CHECK(cudaMemset(all, 0, n * sizeof(int)));
  MPI_Gatherv(mine, kBlock, MPI_INT, all, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
  if (g_rank == 0) MTEST_CHECK(wrong_ints(all, n, blocked, 0) == 0, "MPI_Gatherv wrong");
  CUDA_CHECK(cudaMemset(mine, 0, kBlock * sizeof(int)));
  MPI_Scatterv(in_place, counts, displs, MPI_INT, mine, kBlock, MPI_INT, 0, MPI_COMM_WORLD);
  MTEST_CHECK(wrong_ints(mine, kBlock, own_block, g_rank) == 0, "MPI_Scatterv wrong");
  free(counts);
  free(displs);
  CUDA_CHECK(cudaFree(in_place));
  CUDA_CHECK(cudaFree(mine));
  CUDA_CHECK(cudaFree(all));
}

/* Alltoall(v,w): block j of rank r holds r * 1000 + j; received block r must hold
 * r * 1000 + this rank. */
static int a2a_send(size_t i, int rank) { return rank * 1000 + (int)(i / kBlock); }
static int a2a_recv(size_t i, int rank) { return (int)(i / kBlock) * 1000 + rank; }

static void check_alltoall(void) {
  size_t n = (size_t)kBlock * g_size;
  int *send = dev_ints(n, a2a_send, g_rank);
  int *recv = dev_ints(n, filler, -1);
  MPI_Alltoall(send, kBlock, MPI_INT, recv, kBlock, MPI_INT, MPI_COMM_WORLD);
  MTEST_CHECK(wrong_ints(recv, n, a2a_recv, g_rank) == 0, "MPI_Alltoall wrong");
  int *counts = (int *)malloc(g_size * sizeof(int)), *displs = (int *)malloc(g_size * sizeof(int));
  int *bdispls = (int *)malloc(g_size * sizeof(int));
  MPI_Datatype *types = (MPI_Datatype *)malloc(g_size * sizeof(MPI_Datatype));
  for (int r = 0; r < g_size; ++r)
    counts[r] = kBlock, displs[r] = r * kBlock, bdispls[r] = r * kBlock * (int)sizeof(int),
    types[r] = MPI_INT;
  CUDA_CHECK(cudaMemset(recv, 0, n * sizeof(int)));
  MPI_Alltoallv(send, counts, displs, MPI_INT, recv, counts, displs, MPI_INT, MPI_COMM_WORLD);
  MTEST_CHECK(wrong_ints(recv, n, a2a_recv, g_rank) == 0, "MPI_Alltoallv wrong");
  CUDA_CHECK(cudaMemset(recv, 0, n * sizeof(int)));
  MPI_Alltoallw(send, counts, bdispls, types, recv, counts, bdispls, types, MPI_COMM_WORLD);
  MTEST_CHECK(wrong_ints(recv, n, a2a_recv, g_rank) == 0, "MPI_Alltoallw wrong");
  MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, send, kBlock, MPI_INT, MPI_COMM_WORLD);
  MTEST_CHECK(wrong_ints(send, n, a2a_recv, g_rank) == 0, "in-place MPI_Alltoall wrong");
  free(counts);
  free(displs);
  free(bdispls);
  free(types);
  CUDA_CHECK(cudaFree(send));
  CUDA_CHECK(cudaFree(recv));
}

/* A vector type (every other int) in device memory: allgather of it, gaps left alone; and a
 * barrier and a neighbour allgather on a periodic ring. */
static int gapped(size_t i, int unused) { (void)unused; return i % 2 ? -3 : (int)(i / 8) * 1000 + (int)(i % 8) / 2; }

static void check_derived_and_topology(void) {
  MPI_Datatype vec;
  MPI_Type_vector(4, 1, 2, MPI_INT, &vec);
  MPI_Type_commit(&vec);
  MPI_Datatype spaced;
  MPI_Type_create_resized(vec, 0, 8 * sizeof(int), &spaced);
  MPI_Type_commit(&spaced);
  int *mine = dev_ints(8, own_block, g_rank);
  int host_mine[8];
  for (int i = 0; i < 8; ++i) host_mine[i] = i % 2 ? -3 : g_rank * 1000 + i / 2;
  CUDA_CHECK(cudaMemcpy(mine, host_mine, sizeof host_mine, cudaMemcpyHostToDevice));
  int *all = dev_ints((size_t)8 * g_size, filler, -3);
  MPI_Allgather(mine, 1, spaced, all, 1, spaced, MPI_COMM_WORLD);
  MTEST_CHECK(wrong_ints(all, (size_t)8 * g_size, gapped, 0) == 0, "vector MPI_Allgather wrong");
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm ring;
  int dims[1] = {g_size}, periods[1] = {1};
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
  int *two = dev_ints(2, filler, -1);
  int *me = dev_ints(1, filler, g_rank);
  MPI_Neighbor_allgather(me, 1, MPI_INT, two, 1, MPI_INT, ring);
  int got[2];
  CUDA_CHECK(cudaMemcpy(got, two, sizeof got, cudaMemcpyDeviceToHost));
  MTEST_CHECK(got[0] == (g_rank + g_size - 1) % g_size && got[1] == (g_rank + 1) % g_size,
              "MPI_Neighbor_allgather gave %d %d", got[0], got[1]);
  MPI_Comm_free(&ring);
  MPI_Type_free(&vec);
  MPI_Type_free(&spaced);
  CUDA_CHECK(cudaFree(mine));
  CUDA_CHECK(cudaFree(all));
  CUDA_CHECK(cudaFree(two));
  CUDA_CHECK(cudaFree(me));
}

static void check_paths(void) {
  static const char *const staged[] = {"MPI_Bcast",  "MPI_Ialltoallw", "MPI_Reduce_scatter_c",
                                       "MPI_Gather_init", "MPI_Reduce", "MPI_Scan",
                                       "MPI_Exscan_init"};
  static const char *const native[] = {"MPI_Iallreduce", "MPI_Neighbor_allgather"};
  int path = -1;
  for (size_t i = 0; i < sizeof staged / sizeof *staged; ++i) {
    MPIX_Query_cuda_path(staged[i], &path);
    MTEST_CHECK(path == MPIX_CUDA_PATH_STAGED, "%s: path %d, not staged", staged[i], path);
  }
  for (size_t i = 0; i < sizeof native / sizeof *native; ++i) {
    MPIX_Query_cuda_path(native[i], &path);
    MTEST_CHECK(path == MPIX_CUDA_PATH_NATIVE, "%s: path %d, not native", native[i], path);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (!cuda_test_setup()) {
    MPI_Finalize();
    return 0;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  check_paths();
  check_reductions();
  check_reduce_scatter();
  check_movement();
  check_alltoall();
  check_derived_and_topology();
  return mtest_finalize();
}
