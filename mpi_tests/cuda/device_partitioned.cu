/* Kernel-triggered partitioned communication on a GPU (MPIX_Prequest_create, gpurun/device.cuh).
 * Pairs of ranks (0-1, 2-3) with device buffers of 16 partitions: the sender's kernel fills
 * each partition in one block and marks it ready with MPIX_Pready; the receiver's kernel polls
 * MPIX_Parrived in each block and checks the partition's data on the device. Some epochs wait
 * with MPI_Wait while the kernels run; in others the hosts sit in cudaStreamSynchronize first
 * (the progress helper moves the data). Then a kernel that marks a partition out of range: its
 * MPIX_Pready returns MPI_ERR_ARG, the epoch fails with MPI_ERR_ARG at MPI_Wait, the receiver
 * does not hang, and the next epoch works. Skipped without a device. */
#include <cuda_runtime.h>
#include <mpi.h>

#include <gpurun/device.cuh>

extern "C" {
#include "mtest.h"
}
#include "cuda_util.h"

enum { P = 16, N = 1024, kThreads = 128 };

__device__ int value(int epoch, int i) { return epoch * 1000003 + i; }

// Block b fills partition b; then one thread marks it ready. `extra` >= 0: that partition too
// (out of range: a misuse), whose return code goes to *rc.
__global__ void fill_and_mark(int *buf, int epoch, MPIX_Prequest preq, int extra, int *rc) {
  int b = blockIdx.x;
  for (int i = b * N + threadIdx.x; i < (b + 1) * N; i += blockDim.x) buf[i] = value(epoch, i);
  __syncthreads();
  if (threadIdx.x != 0) return;
  int r = MPIX_Pready(b, preq);
  if (r != MPI_SUCCESS) atomicAdd(&rc[1], 1);
  if (b == 0 && extra >= 0) rc[0] = MPIX_Pready(extra, preq);
}

// Block b waits for partition b (giving up after about 20 s: counted in errors[1]), then
// checks it (wrong values counted in errors[0]).
__global__ void wait_and_check(const int *buf, int epoch, MPIX_Prequest preq, int *errors) {
  __shared__ int arrived;
  int b = blockIdx.x;
  if (threadIdx.x == 0) {
    int flag = 0;
    long long start = clock64();
    while (MPIX_Parrived(preq, b, &flag) == MPI_SUCCESS && !flag) {
      if (clock64() - start > 40000000000LL) break;
    }
    arrived = flag;
    if (!flag) atomicAdd(&errors[1], 1);
  }
  __syncthreads();
  if (!arrived) return;
  for (int i = b * N + threadIdx.x; i < (b + 1) * N; i += blockDim.x)
    if (buf[i] != value(epoch, i)) atomicAdd(&errors[0], 1);
}

static int rank, size, peer;

// One epoch; `sync_first`: the host waits for its stream before MPI_Wait; `extra`: the sender's
// partition out of range (-1: none), and for the receiver -2 launches no kernel. Returns
// MPI_Wait's code.
static int epoch_run(MPI_Request *req, int *buf, int epoch, MPIX_Prequest preq, int sender,
                     int sync_first, int extra, int *counters, cudaStream_t stream) {
  CUDA_CHECK(cudaMemsetAsync(counters, 0, 2 * sizeof(int), stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  MPI_Start(req);
  if (sender)
    fill_and_mark<<<P, kThreads, 0, stream>>>(buf, epoch, preq, extra, counters);
  else if (extra == -1)
    wait_and_check<<<P, kThreads, 0, stream>>>(buf, epoch, preq, counters);
  CUDA_CHECK(cudaGetLastError());
  if (sync_first) CUDA_CHECK(cudaStreamSynchronize(stream));
  int rc = MPI_Wait(req, MPI_STATUS_IGNORE);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return rc;
}

static void pair(void) {
  int sender = rank % 2 == 0, *buf = NULL, *counters = NULL, host[2];
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CUDA_CHECK(cudaMalloc(&buf, P * N * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&counters, 2 * sizeof(int)));
  CUDA_CHECK(cudaMemset(buf, 0xff, P * N * sizeof(int)));
  MPI_Request req;
  MPIX_Prequest preq = MPIX_PREQUEST_NULL;
  if (sender)
    MPI_Psend_init(buf, P, N, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  else
    MPI_Precv_init(buf, P, N, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  int rc = MPIX_Prequest_create(req, &preq);
  MTEST_CHECK(rc == MPI_SUCCESS, "MPIX_Prequest_create = %d", rc);
  for (int epoch = 1; epoch <= 4; ++epoch) {
    rc = epoch_run(&req, buf, epoch, preq, sender, epoch % 2 == 0, -1, counters, stream);
    MTEST_CHECK(rc == MPI_SUCCESS, "epoch %d: MPI_Wait = %d", epoch, rc);
    CUDA_CHECK(cudaMemcpy(host, counters, sizeof host, cudaMemcpyDeviceToHost));
    MTEST_CHECK(host[0] == 0 && host[1] == 0,
                "epoch %d: %d wrong values, %d partitions never arrived or refused", epoch, host[0],
                host[1]);
  }
  /* A kernel that marks partition P, which does not exist. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  rc = epoch_run(&req, buf, 5, preq, sender, 0, sender ? P : -2, counters, stream);
  CUDA_CHECK(cudaMemcpy(host, counters, sizeof host, cudaMemcpyDeviceToHost));
  if (sender) {
    MTEST_CHECK(host[0] == MPI_ERR_ARG, "MPIX_Pready(%d) on the device returned %d", P, host[0]);
    mtest_expect_error(rc, MPI_ERR_ARG, "MPI_Wait after a kernel's misuse",
                       "MPIX_Pready(partition 16) through the request's prequest: not a partition");
  } else {
    /* What the failed sender had not sent comes too long (no kernel waits for it here). */
    mtest_expect_success_or(rc, MPI_ERR_TRUNCATE, MPI_ERR_TRUNCATE, "the receiver's MPI_Wait", "");
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  MPI_Barrier(MPI_COMM_WORLD);
  rc = epoch_run(&req, buf, 6, preq, sender, 1, -1, counters, stream);
  MTEST_CHECK(rc == MPI_SUCCESS, "epoch 6 (after the misuse): MPI_Wait = %d", rc);
  CUDA_CHECK(cudaMemcpy(host, counters, sizeof host, cudaMemcpyDeviceToHost));
  MTEST_CHECK(host[0] == 0 && host[1] == 0, "epoch 6: %d wrong values, %d never arrived", host[0],
              host[1]);
  MPIX_Prequest_free(&preq);
  MPI_Request_free(&req);
  CUDA_CHECK(cudaFree(buf));
  CUDA_CHECK(cudaFree(counters));
  CUDA_CHECK(cudaStreamDestroy(stream));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  if (!cuda_test_setup()) {
    MPI_Finalize();
    return 0;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  peer = rank ^ 1;
  if (peer < size) pair();
  MPI_Barrier(MPI_COMM_WORLD);
  return mtest_finalize();
}
