/* Helpers for the one-sided benchmarks (bench/rma): the window of -w, the synchronization of
 * -s, their timing loops and their validation. Two ranks: rank 0 is the origin of every
 * operation, rank 1 its target, except with fence and pscw, where each rank takes a turn as
 * origin in every iteration (as OSU does; the time is then halved). Needs a full MPI. */
#ifndef BENCH_COMMON_RMA_H
#define BENCH_COMMON_RMA_H

#include "bench.h"

struct rma {
  MPI_Win win;
  void *origin;   /* the origin buffer (host memory) */
  void *base;     /* this rank's window memory */
  void *owned;    /* window memory the benchmark allocated (create, dynamic) */
  MPI_Aint disp;  /* the peer's displacement of its window memory (dynamic: its address) */
  MPI_Group peer; /* the other rank alone, for pscw */
  size_t bytes;   /* the window's size */
  int attached;   /* base is attached to a dynamic window */
};

/* The kind of one-sided operation a program measures. */
enum rma_op { RMA_PUT, RMA_GET, RMA_ACC };

/* Makes the window of -w over `bytes` bytes on both ranks, and the origin buffer. */
void rma_open(struct bench *b, struct rma *r, size_t bytes);
void rma_close(struct rma *r);
/* Adds the "# Window creation" and "# Synchronization" header lines. */
void rma_notes(struct bench *b);

/* Microseconds per operation: `iters` (after `warmup`) operations of `bytes`, each completed
 * by -s's synchronization. Valid on rank 0. */
double rma_latency_us(struct bench *b, struct rma *r, enum rma_op op, size_t bytes);
/* MB/s of -W operations of `bytes` per synchronization. Valid on rank 0. */
double rma_bandwidth(struct bench *b, struct rma *r, enum rma_op op, size_t bytes);
/* -c: one operation of `bytes` with fresh data, through -s's synchronization, then a check of
 * what arrived (on the target for put and accumulate, on the origin for get). Returns this
 * rank's wrong bytes, or -1 when -c is off. */
long long rma_validate(struct bench *b, struct rma *r, enum rma_op op, size_t bytes);

/* A one-sided program's spec: OSU's iteration counts for latency (bandwidth 0) or bandwidth. */
#define RMA_SPEC(program, text, bandwidth)                                               \
  {                                                                                      \
    .name = program, .title = text,                                                      \
    .accepts = BENCH_OPTS_COMMON | BENCH_OPT_RMA | ((bandwidth) ? BENCH_OPT_WINDOW : 0), \
    .ranks = BENCH_RANKS_TWO, .min_size = 1, .max_size = 4 << 20,                        \
    .iters_small = (bandwidth) ? 100 : 10000, .iters_large = (bandwidth) ? 20 : 100,     \
    .warmup_small = (bandwidth) ? 10 : 100, .warmup_large = (bandwidth) ? 2 : 10,        \
    .large_size = 8192,                                                                  \
  }

/* The benchmark's main: columns, sizes and rows of a latency (bandwidth = 0) or bandwidth
 * program. */
int rma_main(const struct bench_spec *spec, enum rma_op op, int bandwidth, int argc, char **argv);

#endif
