/* Shared by the cudaipc tests: picks this rank's GPU (ranks of one host share the GPUs in
 * turn), or tells every rank to skip when there is none. */
#ifndef CUDAIPC_GPU_H
#define CUDAIPC_GPU_H

#include <cuda_runtime_api.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

/* The number of this host's ranks and this rank's place among them; 0 when there is no
 * usable GPU (the caller then skips). */
static inline int gpu_setup(int *local_rank, int *local_size) {
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, local_rank);
  MPI_Comm_size(node, local_size);
  MPI_Comm_free(&node);
  /* Every rank of these tests runs on one host: they all see the same devices. */
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) devices = 0;
  if (devices == 0) return 0;
  cudaSetDevice(*local_rank % devices);
  return devices;
}

/* Reports the skip the way CTest is told to read it (SKIP_REGULAR_EXPRESSION). */
static inline int gpu_skip(void) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    printf("[  SKIPPED ] no usable CUDA device\n");
    fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}

static inline unsigned char gpu_pattern(size_t i, int seed) {
  return (unsigned char)((i * 13 + (size_t)seed) & 0xff);
}

#endif
