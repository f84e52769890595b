/* Point-to-point helpers; see pt2pt.h. */
#include "pt2pt.h"

#include <stdlib.h>

enum { kValidateBytes = 8 << 20 };

/* MPICH's mpi.h gives MPI_Waitall a size attribute that GCC checks against
 * MPI_STATUSES_IGNORE (a sentinel pointer) and warns about wrongly. */
#pragma GCC diagnostic ignored "-Wstringop-overflow"

void pt2pt_alloc(struct bench *b, struct pt2pt_bufs *p, size_t bytes, int side) {
  bench_buf_alloc(b, &p->send, bytes, b->opt.mem[side]);
  bench_buf_alloc(b, &p->recv, bytes, b->opt.mem[side]);
  p->reqs = calloc(2 * (size_t)b->opt.window, sizeof(MPI_Request));
  if (!p->reqs) bench_fail(b, "out of memory");
  if (b->opt.queue == BENCH_QUEUE_STREAM) bench_stream_open(b);
}

void pt2pt_free(struct pt2pt_bufs *p) {
  bench_buf_free(&p->send);
  bench_buf_free(&p->recv);
  free(p->reqs);
}

void pt2pt_pingpong(struct bench *b, struct pt2pt_bufs *p, size_t bytes, int peer, int initiator) {
  if (b->opt.queue == BENCH_QUEUE_STREAM) {
    pt2pt_pingpong_enqueued(b, p, bytes, peer, initiator);
    return;
  }
  int n = (int)bytes;
  if (initiator) {
    MPI_Send(p->send.ptr, n, MPI_CHAR, peer, PT2PT_TAG, b->comm);
    MPI_Recv(p->recv.ptr, n, MPI_CHAR, peer, PT2PT_TAG, b->comm, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(p->recv.ptr, n, MPI_CHAR, peer, PT2PT_TAG, b->comm, MPI_STATUS_IGNORE);
    MPI_Send(p->send.ptr, n, MPI_CHAR, peer, PT2PT_TAG, b->comm);
  }
}

void pt2pt_window(struct bench *b, struct pt2pt_bufs *p, size_t bytes, int n, int peer, int flags,
                  size_t stride) {
  if (b->opt.queue == BENCH_QUEUE_STREAM) {
    pt2pt_window_enqueued(b, p, bytes, n, peer, flags, stride);
    return;
  }
  int nreq = 0;
  if (flags & PT2PT_RECV)
    for (int k = 0; k < n; k++)
      MPI_Irecv((char *)p->recv.ptr + (size_t)k * stride, (int)bytes, MPI_CHAR, peer, PT2PT_TAG,
                MPI_COMM_WORLD, &p->reqs[nreq++]);
  if (flags & PT2PT_SEND)
    for (int k = 0; k < n; k++)
      MPI_Isend((char *)p->send.ptr + (size_t)k * stride, (int)bytes, MPI_CHAR, peer, PT2PT_TAG,
                MPI_COMM_WORLD, &p->reqs[nreq++]);
  MPI_Waitall(nreq, p->reqs, MPI_STATUSES_IGNORE);
}

void pt2pt_ack(struct bench *b, int peer, int send) {
  char ack = 0;
  if (b->opt.queue == BENCH_QUEUE_STREAM) {
    pt2pt_ack_enqueued(b, peer, send);
  } else if (send) {
    MPI_Send(&ack, 1, MPI_CHAR, peer, PT2PT_ACK_TAG, b->comm);
  } else {
    MPI_Recv(&ack, 1, MPI_CHAR, peer, PT2PT_ACK_TAG, b->comm, MPI_STATUS_IGNORE);
  }
}

long long pt2pt_validate_pingpong(struct bench *b, struct pt2pt_bufs *p, size_t bytes, int peer,
                                  int initiator) {
  long long wrong = 0;
  if (!b->opt.validate) return -1;
  for (int round = 1; round <= 2; round++) {
    bench_buf_fill(&p->send, 0, bytes, bench_seed(b->rank, peer, round));
    bench_buf_poison(&p->recv, bytes);
    pt2pt_pingpong(b, p, bytes, peer, initiator);
    bench_stream_sync(b);
    wrong += bench_buf_check(b, &p->recv, 0, bytes, bench_seed(peer, b->rank, round));
  }
  return wrong;
}

long long pt2pt_validate_window(struct bench *b, size_t bytes, int window, int peer, int flags,
                                int side) {
  struct pt2pt_bufs v;
  long long wrong = 0;
  if (!b->opt.validate) return -1;
  int n = bytes && (size_t)window * bytes > kValidateBytes ? (int)(kValidateBytes / bytes) : window;
  if (n < 1) n = 1;
  /* Same n on both sides: it depends only on bytes and the window. */
  pt2pt_alloc(b, &v, (size_t)n * bytes, side);
  for (int k = 0; k < n; k++)
    bench_buf_fill(&v.send, (size_t)k * bytes, bytes, bench_seed(b->rank, peer, 100 + k));
  bench_buf_poison(&v.recv, (size_t)n * bytes);
  pt2pt_window(b, &v, bytes, n, peer, flags, bytes);
  bench_stream_sync(b);
  if (flags & PT2PT_RECV)
    for (int k = 0; k < n; k++)
      wrong +=
          bench_buf_check(b, &v.recv, (size_t)k * bytes, bytes, bench_seed(peer, b->rank, 100 + k));
  pt2pt_free(&v);
  return wrong;
}
