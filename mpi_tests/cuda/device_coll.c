/* Collectives on device buffers, every result checked (label gpu; 2 and 4 ranks). Built when
 * the library has the collectives (tests/cuda/CMakeLists.txt checks mpi_proto.h). */
#include "cuda_util.h"

enum { kCount = 100003 };

static float *device_floats(size_t n, float (*f)(size_t, int), int rank) {
  float *host = (float *)malloc(n * sizeof(float));
  for (size_t i = 0; i < n; ++i) host[i] = f(i, rank);
  float *dev = NULL;
  CUDA_CHECK(cudaMalloc((void **)&dev, n * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(dev, host, n * sizeof(float), cudaMemcpyHostToDevice));
  free(host);
  return dev;
}

static float value(size_t i, int rank) { return (float)((i % 1000) + rank); }

static float *to_host(const float *dev, size_t n) {
  float *host = (float *)malloc(n * sizeof(float));
  CUDA_CHECK(cudaMemcpy(host, dev, n * sizeof(float), cudaMemcpyDeviceToHost));
  return host;
}

static void check_allreduce(int rank, int size) {
  float *send = device_floats(kCount, value, rank);
  float *recv = device_floats(kCount, value, -1);
  MPI_Allreduce(send, recv, kCount, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  float *got = to_host(recv, kCount);
  int wrong = 0;
  for (size_t i = 0; i < kCount; ++i)
    wrong += got[i] != (float)((i % 1000) * size + size * (size - 1) / 2);
  MTEST_CHECK(wrong == 0, "MPI_Allreduce(MPI_SUM) on device buffers: %d wrong", wrong);
  /* In place, MPI_MAX. */
  MPI_Allreduce(MPI_IN_PLACE, send, kCount, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD);
  free(got);
  got = to_host(send, kCount);
  wrong = 0;
  for (size_t i = 0; i < kCount; ++i) wrong += got[i] != (float)((i % 1000) + size - 1);
  MTEST_CHECK(wrong == 0, "in-place MPI_Allreduce(MPI_MAX) on device buffers: %d wrong", wrong);
  free(got);
  CUDA_CHECK(cudaFree(send));
  CUDA_CHECK(cudaFree(recv));
}

static void check_bcast_reduce(int rank, int size) {
  for (int root = 0; root < size; ++root) {
    float *buf = device_floats(kCount, value, rank == root ? 7 : -5);
    MPI_Bcast(buf, kCount, MPI_FLOAT, root, MPI_COMM_WORLD);
    float *got = to_host(buf, kCount);
    int wrong = 0;
    for (size_t i = 0; i < kCount; ++i) wrong += got[i] != value(i, 7);
    MTEST_CHECK(wrong == 0, "MPI_Bcast from %d on device buffers: %d wrong", root, wrong);
    free(got);
    float *out = device_floats(kCount, value, -1);
    MPI_Reduce(buf, out, kCount, MPI_FLOAT, MPI_SUM, root, MPI_COMM_WORLD);
    if (rank == root) {
      got = to_host(out, kCount);
      wrong = 0;
      for (size_t i = 0; i < kCount; ++i) wrong += got[i] != value(i, 7) * size;
      MTEST_CHECK(wrong == 0, "MPI_Reduce to %d on device buffers: %d wrong", root, wrong);
      free(got);
    }
    CUDA_CHECK(cudaFree(buf));
    CUDA_CHECK(cudaFree(out));
  }
}

static void check_gathers(int rank, int size) {
  const size_t n = 4099;
  float *mine = device_floats(n, value, rank);
  float *all = device_floats(n * (size_t)size, value, -1);
  MPI_Allgather(mine, (int)n, MPI_FLOAT, all, (int)n, MPI_FLOAT, MPI_COMM_WORLD);
  float *got = to_host(all, n * (size_t)size);
  int wrong = 0;
  for (int r = 0; r < size; ++r)
    for (size_t i = 0; i < n; ++i) wrong += got[(size_t)r * n + i] != value(i, r);
  MTEST_CHECK(wrong == 0, "MPI_Allgather on device buffers: %d wrong", wrong);
  free(got);
  /* Alltoall: block j of rank r holds r * 100 + j. */
  float *host = (float *)malloc(n * (size_t)size * sizeof(float));
  for (int j = 0; j < size; ++j)
    for (size_t i = 0; i < n; ++i) host[(size_t)j * n + i] = (float)(rank * 100 + j);
  float *send = NULL;
  CUDA_CHECK(cudaMalloc((void **)&send, n * (size_t)size * sizeof(float)));
  CUDA_CHECK(cudaMemcpy(send, host, n * (size_t)size * sizeof(float), cudaMemcpyHostToDevice));
  MPI_Alltoall(send, (int)n, MPI_FLOAT, all, (int)n, MPI_FLOAT, MPI_COMM_WORLD);
  got = to_host(all, n * (size_t)size);
  wrong = 0;
  for (int r = 0; r < size; ++r)
    for (size_t i = 0; i < n; ++i) wrong += got[(size_t)r * n + i] != (float)(r * 100 + rank);
  MTEST_CHECK(wrong == 0, "MPI_Alltoall on device buffers: %d wrong", wrong);
  free(got);
  free(host);
  CUDA_CHECK(cudaFree(send));
  CUDA_CHECK(cudaFree(mine));
  CUDA_CHECK(cudaFree(all));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (!cuda_test_setup()) {
    MPI_Finalize();
    return 0;
  }
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  check_allreduce(rank, size);
  check_bcast_reduce(rank, size);
  check_gathers(rank, size);
  return mtest_finalize();
}
