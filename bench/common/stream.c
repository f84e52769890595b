/* -q stream: point-to-point enqueued on a CUDA stream with MPICH's MPIX extension
 * (MPIX_Send_enqueue and the like), for MPIs whose mpi.h declares MPIX streams; run.c refuses
 * -q stream for the others before anything gets here. The host only enqueues: a timed loop
 * ends with bench_stream_sync, so its time covers what the stream did. */
#include <stdint.h>

#include "cuda_rt.h"
#include "pt2pt.h"

#if defined(MPIX_STREAM_NULL)

void bench_stream_open(struct bench *b) {
  char why[256] = "";
  if (b->queue_comm != MPI_COMM_NULL) return;
  if (bench_cuda_stream_create(&b->cuda_stream, why, sizeof why) != 0) bench_fail(b, "%s", why);
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "type", "cudaStream_t");
  MPIX_Info_set_hex(info, "value", &b->cuda_stream, sizeof b->cuda_stream);
  MPIX_Stream stream;
  int rc = MPIX_Stream_create(info, &stream);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) bench_fail(b, "-q stream: MPIX_Stream_create failed (%d)", rc);
  rc = MPIX_Stream_comm_create(b->comm, stream, &b->queue_comm);
  if (rc != MPI_SUCCESS) bench_fail(b, "-q stream: MPIX_Stream_comm_create failed (%d)", rc);
}

void bench_stream_sync(struct bench *b) {
  char why[256] = "";
  if (b->opt.queue != BENCH_QUEUE_STREAM) return;
  if (bench_cuda_stream_synchronize(b->cuda_stream, why, sizeof why) != 0) bench_fail(b, "%s", why);
}

void pt2pt_pingpong_enqueued(struct bench *b, struct pt2pt_bufs *p, size_t bytes, int peer,
                             int initiator) {
  int n = (int)bytes;
  if (initiator) {
    MPIX_Send_enqueue(p->send.ptr, n, MPI_CHAR, peer, PT2PT_TAG, b->queue_comm);
    MPIX_Recv_enqueue(p->recv.ptr, n, MPI_CHAR, peer, PT2PT_TAG, b->queue_comm, MPI_STATUS_IGNORE);
  } else {
    MPIX_Recv_enqueue(p->recv.ptr, n, MPI_CHAR, peer, PT2PT_TAG, b->queue_comm, MPI_STATUS_IGNORE);
    MPIX_Send_enqueue(p->send.ptr, n, MPI_CHAR, peer, PT2PT_TAG, b->queue_comm);
  }
}

void pt2pt_window_enqueued(struct bench *b, struct pt2pt_bufs *p, size_t bytes, int n, int peer,
                           int flags, size_t stride) {
  int nreq = 0;
  if (flags & PT2PT_RECV)
    for (int k = 0; k < n; k++)
      MPIX_Irecv_enqueue((char *)p->recv.ptr + (size_t)k * stride, (int)bytes, MPI_CHAR, peer,
                         PT2PT_TAG, b->queue_comm, &p->reqs[nreq++]);
  if (flags & PT2PT_SEND)
    for (int k = 0; k < n; k++)
      MPIX_Isend_enqueue((char *)p->send.ptr + (size_t)k * stride, (int)bytes, MPI_CHAR, peer,
                         PT2PT_TAG, b->queue_comm, &p->reqs[nreq++]);
  MPIX_Waitall_enqueue(nreq, p->reqs, MPI_STATUSES_IGNORE);
}

void pt2pt_ack_enqueued(struct bench *b, int peer, int send) {
  static char ack; /* read and written by the stream after the call returns */
  if (send) {
    MPIX_Send_enqueue(&ack, 1, MPI_CHAR, peer, PT2PT_ACK_TAG, b->queue_comm);
  } else {
    MPIX_Recv_enqueue(&ack, 1, MPI_CHAR, peer, PT2PT_ACK_TAG, b->queue_comm, MPI_STATUS_IGNORE);
  }
}

#else

void bench_stream_open(struct bench *b) { bench_fail(b, "-q stream: this MPI has no streams"); }
void bench_stream_sync(struct bench *b) { (void)b; }
void pt2pt_pingpong_enqueued(struct bench *b, struct pt2pt_bufs *p, size_t bytes, int peer,
                             int initiator) {
  (void)p, (void)bytes, (void)peer, (void)initiator;
  bench_fail(b, "-q stream: this MPI has no streams");
}
void pt2pt_window_enqueued(struct bench *b, struct pt2pt_bufs *p, size_t bytes, int n, int peer,
                           int flags, size_t stride) {
  (void)p, (void)bytes, (void)n, (void)peer, (void)flags, (void)stride;
  bench_fail(b, "-q stream: this MPI has no streams");
}
void pt2pt_ack_enqueued(struct bench *b, int peer, int send) {
  (void)peer, (void)send;
  bench_fail(b, "-q stream: this MPI has no streams");
}

#endif
