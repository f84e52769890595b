/* Shared by the device-buffer MPI tests: CUDA error checks and the skip decision. */
#ifndef MPI_TESTS_CUDA_UTIL_H
#define MPI_TESTS_CUDA_UTIL_H

#include <cuda_runtime.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define CUDA_CHECK(expr)                                                                  \
  do {                                                                                    \
    cudaError_t cuda_check_rc_ = (expr);                                                  \
    MTEST_CHECK(cuda_check_rc_ == cudaSuccess, "%s: %s", #expr,                           \
                cudaGetErrorString(cuda_check_rc_));                                      \
  } while (0)

/* After MPI_Init. Returns 1 with this rank's device selected (its local rank modulo the
 * devices: ranks share a GPU when there are more ranks than GPUs), or 0 when the machine has
 * no CUDA device: rank 0 then prints the SKIPPED line CTest looks for. A device that CUDA sees
 * but gpurun does not (MPIX_Query_cuda_support() = 0) is a failure, not a skip. */
static int cuda_test_setup(void) {
  int rank = 0, devices = 0, local = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    if (rank == 0) printf("SKIPPED: no CUDA device on this machine\n");
    return 0;
  }
  MTEST_CHECK(MPIX_Query_cuda_support() == 1,
              "CUDA sees %d devices but MPIX_Query_cuda_support() is 0", devices);
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  CUDA_CHECK(cudaSetDevice(local % devices));
  return 1;
}

/* A device buffer holding `bytes` of the pattern of `seed`. */
static void *device_pattern(size_t bytes, int seed) {
  unsigned char *host = (unsigned char *)malloc(bytes ? bytes : 1);
  for (size_t i = 0; i < bytes; ++i) host[i] = (unsigned char)(i * 31 + seed);
  void *dev = NULL;
  CUDA_CHECK(cudaMalloc(&dev, bytes ? bytes : 1));
  CUDA_CHECK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
  free(host);
  return dev;
}

/* Counts the bytes of `dev` (device or host memory) that differ from the pattern of `seed`. */
static size_t pattern_errors(const void *buf, size_t bytes, int seed, int on_device) {
  unsigned char *host = (unsigned char *)malloc(bytes ? bytes : 1);
  if (on_device) {
    CUDA_CHECK(cudaMemcpy(host, buf, bytes, cudaMemcpyDeviceToHost));
  } else {
    memcpy(host, buf, bytes);
  }
  size_t wrong = 0;
  for (size_t i = 0; i < bytes; ++i) wrong += host[i] != (unsigned char)(i * 31 + seed);
  free(host);
  return wrong;
}

#endif
