/* Device buffers through point-to-point calls between pairs of ranks (0-1, 2-3, ...) that
 * share the host's GPUs: device to device, host to device and device to host, blocking,
 * nonblocking and synchronous, from one byte to 16 MiB (eager, staged and IPC sizes). */
#include <stdlib.h>

#include "gpu.h"
#include "mtest.h"

enum { kDevDev, kHostDev, kDevHost };
static const char *kModeNames[] = {"D-D", "H-D", "D-H"};

static void *buffer(size_t n, int on_device) {
  void *p = NULL;
  if (on_device) {
    if (cudaMalloc(&p, n ? n : 1) != cudaSuccess) return NULL;
  } else {
    p = malloc(n ? n : 1);
  }
  return p;
}

static void release(void *p, int on_device) {
  if (on_device)
    cudaFree(p);
  else
    free(p);
}

static void put(void *dst, const unsigned char *src, size_t n, int on_device) {
  if (on_device)
    cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice);
  else
    memcpy(dst, src, n);
}

static void get(unsigned char *dst, const void *src, size_t n, int on_device) {
  if (on_device)
    cudaMemcpy(dst, src, n, cudaMemcpyDeviceToHost);
  else
    memcpy(dst, src, n);
}

/* One message from the even rank of the pair to the odd one, in the given call style. */
static void exchange(int rank, size_t n, int mode, int style) {
  int sender = rank % 2 == 0, peer = rank ^ 1;
  int send_dev = mode != kHostDev, recv_dev = mode != kDevHost;
  int on_device = sender ? send_dev : recv_dev;
  void *buf = buffer(n, on_device);
  unsigned char *host = malloc(n ? n : 1);
  int seed = (int)n + 7 * mode + 31 * style;
  MTEST_CHECK(buf != NULL, "%s buffer of %zu bytes", on_device ? "device" : "host", n);
  if (buf == NULL) return;
  if (sender) {
    for (size_t i = 0; i < n; i++) host[i] = gpu_pattern(i, seed);
    put(buf, host, n, on_device);
    MPI_Request req;
    if (style == 0) MPI_Send(buf, (int)n, MPI_BYTE, peer, 5, MPI_COMM_WORLD);
    if (style == 1) {
      MPI_Isend(buf, (int)n, MPI_BYTE, peer, 5, MPI_COMM_WORLD, &req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    if (style == 2) MPI_Ssend(buf, (int)n, MPI_BYTE, peer, 5, MPI_COMM_WORLD);
  } else {
    MPI_Status status;
    MPI_Request req;
    if (style == 1) {
      MPI_Irecv(buf, (int)n, MPI_BYTE, peer, 5, MPI_COMM_WORLD, &req);
      MPI_Wait(&req, &status);
    } else {
      MPI_Recv(buf, (int)n, MPI_BYTE, peer, 5, MPI_COMM_WORLD, &status);
    }
    int count = -1;
    MPI_Get_count(&status, MPI_BYTE, &count);
    MTEST_CHECK(count == (int)n, "%s %zu bytes: count %d", kModeNames[mode], n, count);
    get(host, buf, n, on_device);
    size_t bad = n;
    for (size_t i = 0; i < n && bad == n; i++)
      if (host[i] != gpu_pattern(i, seed)) bad = i;
    MTEST_CHECK(bad == n, "%s %zu bytes, style %d: byte %zu wrong", kModeNames[mode], n, style,
                bad);
  }
  release(buf, on_device);
  free(host);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, local_rank, local_size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (gpu_setup(&local_rank, &local_size) == 0) return gpu_skip();
  MTEST_CHECK(size % 2 == 0, "needs an even number of ranks, got %d", size);
  static const size_t kSizes[] = {0, 1, 8, 4096, 8193, 65536, 1 << 20, 16 << 20};
  for (size_t s = 0; s < sizeof kSizes / sizeof kSizes[0]; s++)
    for (int mode = kDevDev; mode <= kDevHost; mode++)
      for (int style = 0; style < 3; style++)
        if (rank < size - size % 2) exchange(rank, kSizes[s], mode, style);
  return mtest_finalize();
}
