/* The IPC cache under churn: the even rank of each pair allocates a device buffer, sends it
 * and frees it, 10,000 times; the device's memory in use must stay flat (mappings of freed
 * buffers must not pile up in the receiver, and the sender's memory must really go). */
#include <stdlib.h>

#include "gpu.h"
#include "mtest.h"

enum { kBytes = 1 << 20, kRounds = 10000 };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, local_rank, local_size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (gpu_setup(&local_rank, &local_size) == 0) return gpu_skip();
  int sender = rank % 2 == 0, peer = rank ^ 1;
  void *dst = NULL;
  if (!sender) MTEST_CHECK(cudaMalloc(&dst, kBytes) == cudaSuccess, "receive buffer");
  size_t free_before = 0, free_after = 0, total = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  cudaMemGetInfo(&free_before, &total);
  for (int i = 0; i < kRounds; i++) {
    if (sender) {
      void *src = NULL;
      if (cudaMalloc(&src, kBytes) != cudaSuccess) {
        MTEST_CHECK(0, "cudaMalloc failed in round %d", i);
        break;
      }
      cudaMemset(src, i & 0xff, kBytes);
      cudaDeviceSynchronize();
      MPI_Send(src, kBytes, MPI_BYTE, peer, 3, MPI_COMM_WORLD);
      cudaFree(src);
    } else {
      MPI_Recv(dst, kBytes, MPI_BYTE, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (i % 1000 == 999) {
        unsigned char b = 0;
        cudaMemcpy(&b, (char *)dst + kBytes - 1, 1, cudaMemcpyDeviceToHost);
        MTEST_CHECK(b == (unsigned char)(i & 0xff), "round %d: byte %d", i, b);
      }
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  cudaMemGetInfo(&free_after, &total);
  long long grown = (long long)free_before - (long long)free_after;
  if (rank == 0) printf("device memory in use grew by %lld bytes over %d rounds\n", grown, kRounds);
  /* One stale 1 MiB mapping per round would be 10 GB; a few live ones are fine. */
  MTEST_CHECK(grown < (256LL << 20), "device memory in use grew by %lld bytes", grown);
  if (dst) cudaFree(dst);
  return mtest_finalize();
}
