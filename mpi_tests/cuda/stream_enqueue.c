/* Operations enqueued on a CUDA stream (MPIX_Send_enqueue and the rest): each must run after
 * the stream's earlier work and before its later work, with the host never waiting.
 *
 * Ranks pair up (rank ^ 1). Every round, the stream first fills the send buffer with the
 * round's byte (cudaMemsetAsync), then the message goes by enqueued send and receive, then the
 * stream copies the receive buffer into the round's slot of pinned host memory. Only after all
 * rounds does the host synchronize and check every slot: a send that ran before its memset
 * sends an older round's byte, a copy that ran before its receive copies one. Rounds go by
 * MPIX_Send/Recv_enqueue, by MPIX_Isend/Irecv_enqueue with MPIX_Waitall_enqueue, and by
 * MPIX_Wait_enqueue; small and large messages (the large ones cross by CUDA IPC). Then
 * MPIX_Allreduce_enqueue sums device buffers that the stream wrote just before, and MPI_Wait of
 * an enqueued request is refused. */
#include <stdint.h>

#include "cuda_util.h"

#define ROUNDS 64

static MPI_Comm stream_comm(cudaStream_t s, MPIX_Stream *mpi_stream) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "type", "cudaStream_t");
  MPIX_Info_set_hex(info, "value", &s, sizeof s);
  int rc = MPIX_Stream_create(info, mpi_stream);
  MTEST_CHECK(rc == MPI_SUCCESS, "MPIX_Stream_create of a CUDA stream: %d", rc);
  MPI_Info_free(&info);
  MPI_Comm comm = MPI_COMM_NULL;
  rc = MPIX_Stream_comm_create(MPI_COMM_WORLD, *mpi_stream, &comm);
  MTEST_CHECK(rc == MPI_SUCCESS, "MPIX_Stream_comm_create: %d", rc);
  return comm;
}

/* One round of `bytes`: memset, exchange in `mode` (0 blocking, 1 waitall, 2 wait), copy out. */
static void round_trip(MPI_Comm comm, cudaStream_t s, int peer, int mode, unsigned char *send,
                       unsigned char *recv, size_t bytes, unsigned char *out, int value) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  CUDA_CHECK(cudaMemsetAsync(send, value, bytes, s));
  if (mode == 0) {
    MPI_Status *status = MPI_STATUS_IGNORE;
    if (rank % 2 == 0) {
      MPIX_Send_enqueue(send, (int)bytes, MPI_BYTE, peer, 1, comm);
      MPIX_Recv_enqueue(recv, (int)bytes, MPI_BYTE, peer, 1, comm, status);
    } else {
      MPIX_Recv_enqueue(recv, (int)bytes, MPI_BYTE, peer, 1, comm, status);
      MPIX_Send_enqueue(send, (int)bytes, MPI_BYTE, peer, 1, comm);
    }
  } else {
    MPI_Request reqs[2];
    MPIX_Irecv_enqueue(recv, (int)bytes, MPI_BYTE, peer, 2, comm, &reqs[0]);
    MPIX_Isend_enqueue(send, (int)bytes, MPI_BYTE, peer, 2, comm, &reqs[1]);
    if (mode == 1) {
      MPIX_Waitall_enqueue(2, reqs, MPI_STATUSES_IGNORE);
    } else {
      MPIX_Wait_enqueue(&reqs[1], MPI_STATUS_IGNORE);
      MPIX_Wait_enqueue(&reqs[0], MPI_STATUS_IGNORE);
    }
    MTEST_CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL,
                "requests after MPIX_Wait(all)_enqueue: 0x%x 0x%x", (unsigned)reqs[0],
                (unsigned)reqs[1]);
  }
  CUDA_CHECK(cudaMemcpyAsync(out, recv, bytes, cudaMemcpyDeviceToHost, s));
}

static void exchanges(MPI_Comm comm, cudaStream_t s, size_t bytes) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  int peer = rank ^ 1;
  unsigned char *send, *recv, *out;
  CUDA_CHECK(cudaMalloc((void **)&send, bytes));
  CUDA_CHECK(cudaMalloc((void **)&recv, bytes));
  CUDA_CHECK(cudaMallocHost((void **)&out, bytes * ROUNDS));
  for (int k = 0; k < ROUNDS; ++k)
    round_trip(comm, s, peer, k % 3, send, recv, bytes, out + (size_t)k * bytes,
               (k * 7 + rank) & 0xff);
  CUDA_CHECK(cudaStreamSynchronize(s));
  for (int k = 0; k < ROUNDS; ++k) {
    size_t wrong = 0;
    unsigned char want = (unsigned char)((k * 7 + peer) & 0xff);
    for (size_t i = 0; i < bytes; ++i) wrong += out[(size_t)k * bytes + i] != want;
    MTEST_CHECK(wrong == 0, "%zu bytes, round %d (mode %d): %zu bytes wrong", bytes, k, k % 3,
                wrong);
  }
  CUDA_CHECK(cudaFreeHost(out));
  CUDA_CHECK(cudaFree(recv));
  CUDA_CHECK(cudaFree(send));
}

static void allreduce(MPI_Comm comm, cudaStream_t s) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  enum { kCount = 4096 };
  int *host, *dev, *result;
  CUDA_CHECK(cudaMallocHost((void **)&host, kCount * sizeof(int)));
  CUDA_CHECK(cudaMallocHost((void **)&result, kCount * sizeof(int)));
  CUDA_CHECK(cudaMalloc((void **)&dev, kCount * sizeof(int)));
  for (int i = 0; i < kCount; ++i) host[i] = rank * kCount + i;
  CUDA_CHECK(cudaMemsetAsync(dev, 0, kCount * sizeof(int), s));
  CUDA_CHECK(cudaMemcpyAsync(dev, host, kCount * sizeof(int), cudaMemcpyHostToDevice, s));
  int rc = MPIX_Allreduce_enqueue(MPI_IN_PLACE, dev, kCount, MPI_INT, MPI_SUM, comm);
  MTEST_CHECK(rc == MPI_SUCCESS, "MPIX_Allreduce_enqueue: %d", rc);
  CUDA_CHECK(cudaMemcpyAsync(result, dev, kCount * sizeof(int), cudaMemcpyDeviceToHost, s));
  CUDA_CHECK(cudaStreamSynchronize(s));
  int wrong = 0;
  for (int i = 0; i < kCount; ++i)
    wrong += result[i] != size * i + kCount * (size * (size - 1) / 2);
  MTEST_CHECK(wrong == 0, "MPIX_Allreduce_enqueue: %d of %d sums wrong", wrong, (int)kCount);
  CUDA_CHECK(cudaFree(dev));
  CUDA_CHECK(cudaFreeHost(result));
  CUDA_CHECK(cudaFreeHost(host));
}

static void refused_wait(MPI_Comm comm, cudaStream_t s) {
  int rank;
  MPI_Comm_rank(comm, &rank);
  unsigned char *buf;
  CUDA_CHECK(cudaMalloc((void **)&buf, 64));
  MPI_Request req;
  MPIX_Isend_enqueue(buf, 64, MPI_BYTE, rank ^ 1, 3, comm, &req);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  mtest_expect_arg_error(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_ERR_REQUEST, "MPI_Wait", "request");
  MPI_Status status;
  MPIX_Recv_enqueue(buf, 64, MPI_BYTE, rank ^ 1, 3, comm, &status);
  MPIX_Wait_enqueue(&req, MPI_STATUS_IGNORE);
  CUDA_CHECK(cudaStreamSynchronize(s));
  MTEST_CHECK(status.MPI_SOURCE == (rank ^ 1) && status.MPI_TAG == 3,
              "MPIX_Recv_enqueue's status: source %d tag %d", status.MPI_SOURCE, status.MPI_TAG);
  CUDA_CHECK(cudaFree(buf));
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (!cuda_test_setup()) {
    MPI_Finalize();
    return 0;
  }
  MTEST_CHECK(size % 2 == 0, "needs an even number of ranks, not %d", size);
  cudaStream_t s;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  MPIX_Stream mpi_stream;
  MPI_Comm comm = stream_comm(s, &mpi_stream);
  exchanges(comm, s, 64);
  exchanges(comm, s, 1 << 20);
  allreduce(comm, s);
  refused_wait(comm, s);
  MPI_Comm_free(&comm);
  int rc = MPIX_Stream_free(&mpi_stream);
  MTEST_CHECK(rc == MPI_SUCCESS, "MPIX_Stream_free: %d", rc);
  CUDA_CHECK(cudaStreamDestroy(s));
  return mtest_finalize();
}
