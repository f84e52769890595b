/* Drivers for collective benchmarks. A program describes its collective as a coll_op (how
 * big its buffers are, how to call it, how to fill and check its data) and hands it to
 * bench_coll_main (blocking: latency per call) or bench_nbc_main (nonblocking: overlap of
 * communication with computation). Needs a full MPI (not built for BENCH_MPI_MINIMAL). */
#ifndef BENCH_COMMON_COLL_H
#define BENCH_COMMON_COLL_H

#include "bench.h"

struct coll_ctx {
  struct bench *b;
  size_t bytes; /* message size of the row */
  size_t count; /* elements per block: bytes, or floats for reductions */
  size_t elem;  /* bytes per element: 1, or sizeof(float) for reductions */
  struct bench_buf send, recv;
  int *counts, *displs; /* per rank, in elements: v-variants and reduce_scatter */
  int root;
};

struct coll_op {
  int reduction; /* data are floats summed by the collective */
  /* Buffer sizes in bytes for the row's c->bytes and c->count. */
  size_t (*send_bytes)(const struct coll_ctx *c);
  size_t (*recv_bytes)(const struct coll_ctx *c);
  void (*prepare)(struct coll_ctx *c); /* optional: counts and displacements */
  void (*run)(struct coll_ctx *c);
  void (*start)(struct coll_ctx *c, MPI_Request *req); /* nonblocking form */
  void (*enqueue)(struct coll_ctx *c); /* -q stream form (MPIX_*_enqueue), where there is one */
  /* Validation: fill the send side and poison the receive side for round; count errors. */
  void (*fill)(struct coll_ctx *c, int round);
  long long (*check)(struct coll_ctx *c, int round);
};

/* Options and default counts of every collective benchmark (OSU's). */
#define BENCH_OPTS_COLL (BENCH_OPTS_COMMON | BENCH_OPT_FULL | BENCH_OPT_ACCEL)
#define BENCH_COLL_COUNTS                                                           \
  .iters_small = 1000, .iters_large = 100, .warmup_small = 200, .warmup_large = 10, \
  .large_size = 8192, .max_size = 1 << 20
#define BENCH_OPTS_NBC (BENCH_OPTS_COLL | BENCH_OPT_TEST_CALLS)

int bench_coll_main(const struct bench_spec *spec, const struct coll_op *op, int argc, char **argv);
int bench_nbc_main(const struct bench_spec *spec, const struct coll_op *op, int argc, char **argv);

/* Busy work for a given time, calling MPI_Test on req ntest times spread over it. Returns the
 * seconds spent inside MPI_Test. */
double bench_compute(double seconds, MPI_Request *req, int ntest);

/* Building blocks for coll_op (coll_data.c). "one" = one block of c->count elements, "all" = one
 * block per rank. */
size_t coll_bytes_zero(const struct coll_ctx *c);
size_t coll_bytes_one(const struct coll_ctx *c);
size_t coll_bytes_all(const struct coll_ctx *c);
void coll_prepare_blocks(struct coll_ctx *c); /* counts[j] = count, displs[j] = j * count */
void coll_prepare_split(struct coll_ctx *c);  /* count split over ranks (reduce_scatter) */
/* Send one block of this rank's pattern / one block per destination; poison the receive side. */
void coll_fill_one(struct coll_ctx *c, int round);
void coll_fill_per_dest(struct coll_ctx *c, int round);
/* Check a received block per source rank (gathered) / from the root (scattered). */
long long coll_check_per_source(struct coll_ctx *c, int round, int to_me);
long long coll_check_from_root(struct coll_ctx *c, int round, int per_dest);
/* Broadcast: one buffer (send) on every rank, filled at the root, checked elsewhere. */
void coll_fill_bcast(struct coll_ctx *c, int round);
long long coll_check_bcast(struct coll_ctx *c, int round);
/* Float data for reductions: fill the send side, poison the receive side; check elements. */
void coll_fill_reduce(struct coll_ctx *c, int round);
long long coll_check_reduce(struct coll_ctx *c, int round, size_t first, size_t count);

#endif
