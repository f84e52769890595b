/* Point-to-point with device buffers (label gpu; 2 or 4 ranks, possibly sharing one GPU):
 * device to device, host to device and device to host, blocking, nonblocking and synchronous,
 * from 0 bytes to several MiB; a derived datatype in device memory; buffers from
 * cudaMallocAsync and cudaMallocManaged; the exchanges, buffered sends and matched receives of
 * device buffers. Ranks pair up: 0 with 1, 2 with 3. */
#include "cuda_util.h"

enum { kHost, kDevice };
static const size_t kSizes[] = {0, 1, 8, 4096, 65539, 1 << 20, (4 << 20) + 5};

static void *make_send(int kind, size_t bytes, int seed) {
  if (kind == kDevice) return device_pattern(bytes, seed);
  unsigned char *p = (unsigned char *)malloc(bytes ? bytes : 1);
  for (size_t i = 0; i < bytes; ++i) p[i] = (unsigned char)(i * 31 + seed);
  return p;
}

static void *make_recv(int kind, size_t bytes) {
  void *p = NULL;
  if (kind == kDevice) {
    CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1));
    CUDA_CHECK(cudaMemset(p, 0xee, bytes ? bytes : 1));
  } else {
    p = malloc(bytes ? bytes : 1);
    memset(p, 0xee, bytes ? bytes : 1);
  }
  return p;
}

static void release(int kind, void *p) {
  if (kind == kDevice) {
    CUDA_CHECK(cudaFree(p));
  } else {
    free(p);
  }
}

/* One message of `bytes` from `sender` kind to `receiver` kind, in the three send modes. */
static void exchange(int rank, int peer, int sender, int receiver, size_t bytes) {
  int seed = (int)(bytes % 251) + 3 * sender + receiver;
  for (int mode = 0; mode < 3; ++mode) {
    if (rank % 2 == 0) {
      void *buf = make_send(sender, bytes, seed);
      if (mode == 0) MPI_Send(buf, (int)bytes, MPI_BYTE, peer, mode, MPI_COMM_WORLD);
      if (mode == 1) MPI_Ssend(buf, (int)bytes, MPI_BYTE, peer, mode, MPI_COMM_WORLD);
      if (mode == 2) {
        MPI_Request r;
        MPI_Isend(buf, (int)bytes, MPI_BYTE, peer, mode, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
      }
      release(sender, buf);
    } else {
      void *buf = make_recv(receiver, bytes);
      MPI_Status status;
      if (mode < 2) {
        MPI_Recv(buf, (int)bytes, MPI_BYTE, peer, mode, MPI_COMM_WORLD, &status);
      } else {
        MPI_Request r;
        MPI_Irecv(buf, (int)bytes, MPI_BYTE, peer, mode, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, &status);
      }
      int count = -1;
      MPI_Get_count(&status, MPI_BYTE, &count);
      MTEST_CHECK(count == (int)bytes, "count %d, sent %zu", count, bytes);
      size_t wrong = pattern_errors(buf, bytes, seed, receiver == kDevice);
      MTEST_CHECK(wrong == 0, "%s to %s, %zu bytes, mode %d: %zu bytes wrong",
                  sender == kDevice ? "D" : "H", receiver == kDevice ? "D" : "H", bytes, mode,
                  wrong);
      release(receiver, buf);
    }
  }
}

/* A vector of doubles in device memory on both sides: the gaps stay untouched. */
static void derived(int rank, int peer) {
  enum { kBlocks = 1000, kLength = 3, kStride = 5 };
  size_t n = (size_t)kBlocks * kStride;
  MPI_Datatype vec;
  MPI_Type_vector(kBlocks, kLength, kStride, MPI_DOUBLE, &vec);
  MPI_Type_commit(&vec);
  double *host = (double *)malloc(n * sizeof(double));
  double *dev = NULL;
  CUDA_CHECK(cudaMalloc((void **)&dev, n * sizeof(double)));
  for (size_t i = 0; i < n; ++i) host[i] = rank % 2 == 0 ? (double)i : -1.0;
  CUDA_CHECK(cudaMemcpy(dev, host, n * sizeof(double), cudaMemcpyHostToDevice));
  if (rank % 2 == 0) {
    MPI_Send(dev, 1, vec, peer, 9, MPI_COMM_WORLD);
  } else {
    MPI_Recv(dev, 1, vec, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CUDA_CHECK(cudaMemcpy(host, dev, n * sizeof(double), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (size_t i = 0; i < n; ++i) {
      double want = (i % kStride) < kLength ? (double)i : -1.0;
      wrong += host[i] != want;
    }
    MTEST_CHECK(wrong == 0, "vector of doubles in device memory: %d elements wrong", wrong);
  }
  CUDA_CHECK(cudaFree(dev));
  free(host);
  MPI_Type_free(&vec);
}

/* cudaMallocAsync (a pool) on the sender, cudaMallocManaged on the receiver, and back. */
static void allocators(int rank, int peer) {
  const size_t bytes = (1 << 20) + 17;
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  void *pool = NULL, *managed = NULL;
  CUDA_CHECK(cudaMallocAsync(&pool, bytes, stream));
  CUDA_CHECK(cudaMallocManaged(&managed, bytes, cudaMemAttachGlobal));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  void *pattern = device_pattern(bytes, 77);
  CUDA_CHECK(cudaMemcpy(pool, pattern, bytes, cudaMemcpyDeviceToDevice));
  CUDA_CHECK(cudaMemcpy(managed, pattern, bytes, cudaMemcpyDeviceToDevice));
  if (rank % 2 == 0) {
    MPI_Send(pool, (int)bytes, MPI_BYTE, peer, 11, MPI_COMM_WORLD);
    CUDA_CHECK(cudaMemset(pool, 0, bytes));
    MPI_Recv(pool, (int)bytes, MPI_BYTE, peer, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MTEST_CHECK(pattern_errors(pool, bytes, 77, 1) == 0, "managed to pool memory");
  } else {
    CUDA_CHECK(cudaMemset(managed, 0, bytes));
    CUDA_CHECK(cudaDeviceSynchronize());
    MPI_Recv(managed, (int)bytes, MPI_BYTE, peer, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MTEST_CHECK(pattern_errors(managed, bytes, 77, 1) == 0, "pool to managed memory");
    MPI_Send(managed, (int)bytes, MPI_BYTE, peer, 12, MPI_COMM_WORLD);
  }
  CUDA_CHECK(cudaFree(pattern));
  CUDA_CHECK(cudaFree(managed));
  CUDA_CHECK(cudaFreeAsync(pool, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaStreamDestroy(stream));
}

/* The calls that hold or exchange device buffers in their own way: MPI_Sendrecv,
 * MPI_Sendrecv_replace, MPI_Isendrecv(_replace), MPI_Bsend and MPI_Mprobe + MPI_Mrecv. Both
 * ranks send their pattern and receive the peer's into device memory. */
static void exchanges(int rank, int peer, size_t bytes) {
  int mine = (int)(bytes % 97) + rank, theirs = (int)(bytes % 97) + peer, n = (int)bytes;
  for (int call = 0; call < 6; ++call) {
    void *out = device_pattern(bytes, mine), *in = make_recv(kDevice, bytes);
    void *checked = in;
    MPI_Request r;
    if (call == 0) {
      MPI_Sendrecv(out, n, MPI_BYTE, peer, 1, in, n, MPI_BYTE, peer, 1, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
    } else if (call == 1) {
      MPI_Sendrecv_replace(out, n, MPI_BYTE, peer, 2, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      checked = out;
    } else if (call == 2) {
      MPI_Isendrecv(out, n, MPI_BYTE, peer, 3, in, n, MPI_BYTE, peer, 3, MPI_COMM_WORLD, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
    } else if (call == 3) {
      MPI_Isendrecv_replace(out, n, MPI_BYTE, peer, 4, peer, 4, MPI_COMM_WORLD, &r);
      MPI_Wait(&r, MPI_STATUS_IGNORE);
      checked = out;
    } else {
      int space = n + MPI_BSEND_OVERHEAD;
      void *attached = malloc((size_t)space), *back;
      MPI_Buffer_attach(attached, space);
      if (call == 4) MPI_Bsend(out, n, MPI_BYTE, peer, 5, MPI_COMM_WORLD);
      if (call == 5) MPI_Isend(out, n, MPI_BYTE, peer, 6, MPI_COMM_WORLD, &r);
      MPI_Message msg;
      MPI_Mprobe(peer, 5 + (call == 5), MPI_COMM_WORLD, &msg, MPI_STATUS_IGNORE);
      MPI_Mrecv(in, n, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
      if (call == 5) MPI_Wait(&r, MPI_STATUS_IGNORE);
      MPI_Buffer_detach(&back, &space);
      free(back);
    }
    size_t wrong = pattern_errors(checked, bytes, theirs, 1);
    MTEST_CHECK(wrong == 0, "call %d, %zu bytes: %zu bytes wrong", call, bytes, wrong);
    release(kDevice, out);
    release(kDevice, in);
  }
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
  int peer = rank ^ 1;
  if (peer < size) {
    const int pairs[][2] = {{kDevice, kDevice}, {kHost, kDevice}, {kDevice, kHost}};
    for (int p = 0; p < 3; ++p)
      for (size_t s = 0; s < sizeof kSizes / sizeof *kSizes; ++s)
        exchange(rank, peer, pairs[p][0], pairs[p][1], kSizes[s]);
    derived(rank, peer);
    allocators(rank, peer);
    for (size_t s = 0; s < sizeof kSizes / sizeof *kSizes; ++s) exchanges(rank, peer, kSizes[s]);
  }
  return mtest_finalize();
}
