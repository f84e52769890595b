/* The IPC cache under churn (label gpu, 2 ranks): allocate, send, free, 10,000 times, on both
 * sides. Every send comes from a fresh allocation (often at an address a freed one had), so a
 * transport that keeps imported mappings of freed memory would grow GPU memory use by the
 * message size each round; it must stay flat, and every message must arrive intact. */
#include "cuda_util.h"

enum { kRounds = 10000 };
static const size_t kBytes = (2 << 20) + 4096;
/* Slack for the CUDA runtime's own pools and the transport's fixed buffers; a leak of one
 * mapping per round would be 20 GiB. */
static const size_t kSlack = 256u << 20;

static size_t used_memory(void) {
  size_t free_bytes = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  return total - free_bytes;
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
  size_t before = 0;
  for (int round = 0; round < kRounds && size >= 2 && rank < 2; ++round) {
    int seed = round % 199;
    void *buf = rank == 0 ? device_pattern(kBytes, seed) : NULL;
    if (rank == 0) {
      MPI_Send(buf, (int)kBytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    } else {
      CUDA_CHECK(cudaMalloc(&buf, kBytes));
      MPI_Recv(buf, (int)kBytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (round % 500 == 0)
        MTEST_CHECK(pattern_errors(buf, kBytes, seed, 1) == 0, "round %d: data wrong", round);
    }
    CUDA_CHECK(cudaFree(buf));
    if (round == 10) before = used_memory();  /* after the first rounds set things up */
  }
  if (size >= 2 && rank < 2) {
    size_t after = used_memory();
    MTEST_CHECK(after <= before + kSlack,
                "GPU memory in use grew from %zu to %zu MiB over %d rounds", before >> 20,
                after >> 20, kRounds);
  }
  return mtest_finalize();
}
