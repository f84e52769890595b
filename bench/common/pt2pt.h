/* Helpers for the point-to-point benchmarks: windows of nonblocking messages and their
 * validation. Needs a full MPI (not built for BENCH_MPI_MINIMAL). */
#ifndef BENCH_COMMON_PT2PT_H
#define BENCH_COMMON_PT2PT_H

#include "bench.h"

#define PT2PT_TAG 1
#define PT2PT_ACK_TAG 2

/* Buffers of one rank: placement follows -d cuda X Y for the side the rank plays. */
struct pt2pt_bufs {
  struct bench_buf send, recv;
  MPI_Request *reqs; /* 2 x window */
};

void pt2pt_alloc(struct bench *b, struct pt2pt_bufs *p, size_t bytes, int side);
void pt2pt_free(struct pt2pt_bufs *p);

/* One ping-pong: the initiator sends then receives; the other receives then sends. With
 * -q stream every call here is enqueued on the stream instead (bench_stream_sync waits). */
void pt2pt_pingpong(struct bench *b, struct pt2pt_bufs *p, size_t bytes, int peer, int initiator);
/* n receives and/or n sends of bytes with peer, all in flight at once, then a wait for all;
 * slot k uses offset k * stride in the buffers (stride 0: one buffer for all). */
void pt2pt_window(struct bench *b, struct pt2pt_bufs *p, size_t bytes, int n, int peer, int flags,
                  size_t stride);
enum { PT2PT_SEND = 1, PT2PT_RECV = 2 };
/* A one-byte acknowledgement to (send) or from peer. */
void pt2pt_ack(struct bench *b, int peer, int send);

/* The -q stream forms of the three (stream.c). */
void pt2pt_pingpong_enqueued(struct bench *b, struct pt2pt_bufs *p, size_t bytes, int peer,
                             int initiator);
void pt2pt_window_enqueued(struct bench *b, struct pt2pt_bufs *p, size_t bytes, int n, int peer,
                           int flags, size_t stride);
void pt2pt_ack_enqueued(struct bench *b, int peer, int send);

/* -c for ping-pong: two rounds of one exchange each with fresh data; returns wrong bytes
 * received by this rank, or -1 when -c is off. */
long long pt2pt_validate_pingpong(struct bench *b, struct pt2pt_bufs *p, size_t bytes, int peer,
                                  int initiator);
/* -c for windows: one window of distinct messages (capped at 8 MiB in flight) in each
 * direction given by flags, every message checked. */
long long pt2pt_validate_window(struct bench *b, size_t bytes, int window, int peer, int flags,
                                int side);

#endif
