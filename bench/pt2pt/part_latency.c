/* part_latency (ours; OSU has none): half the round-trip time of a ping-pong of MPI-4
 * partitioned messages. Each message of SIZE bytes is SIZE / N partitions (-P N, default 16):
 * the sender marks them ready one by one with MPI_Pready, the receiver waits for the whole
 * message. Sizes below N bytes are skipped. An MPI whose mpi.h is older than MPI-4 has no
 * partitioned communication: the program says so and exits 77. */
#include <stdio.h>

#include "pt2pt.h"

static const struct bench_spec kSpec = {
    .name = "part_latency",
    .title = "Partitioned Latency Test",
    .accepts = BENCH_OPTS_COMMON | BENCH_OPT_FULL | BENCH_OPT_ACCEL | BENCH_OPT_PLACEMENT |
               BENCH_OPT_PARTITIONS,
    .ranks = BENCH_RANKS_TWO,
    .min_size = 16,
    .max_size = 1 << 20,
    .iters_small = 10000,
    .iters_large = 1000,
    .warmup_small = 1000,
    .warmup_large = 100,
    .large_size = 8192,
};

#if MPI_VERSION >= 4
enum { kTag = 3 };

/* The partitioned send and receive of one size, both ways. */
struct part_reqs {
  MPI_Request send, recv;
  int parts;
};

static void part_init(struct bench *b, struct pt2pt_bufs *p, size_t bytes, struct part_reqs *r) {
  int peer = 1 - b->rank;
  MPI_Count count = (MPI_Count)(bytes / (size_t)b->opt.partitions);
  r->parts = b->opt.partitions;
  MPI_Psend_init(p->send.ptr, r->parts, count, MPI_CHAR, peer, kTag, b->comm, MPI_INFO_NULL,
                 &r->send);
  MPI_Precv_init(p->recv.ptr, r->parts, count, MPI_CHAR, peer, kTag, b->comm, MPI_INFO_NULL,
                 &r->recv);
}

static void part_free(struct part_reqs *r) {
  MPI_Request_free(&r->send);
  MPI_Request_free(&r->recv);
}

static void send_epoch(struct part_reqs *r) {
  for (int k = 0; k < r->parts; k++) MPI_Pready(k, r->send);
  MPI_Wait(&r->send, MPI_STATUS_IGNORE);
}

/* One ping-pong: rank 0's message, then rank 1's. */
static void part_pingpong(struct bench *b, struct part_reqs *r) {
  MPI_Start(&r->recv);
  MPI_Start(&r->send);
  if (b->rank == 0) send_epoch(r);
  MPI_Wait(&r->recv, MPI_STATUS_IGNORE);
  if (b->rank == 1) send_epoch(r);
}

static double latency_us(struct bench *b, struct part_reqs *r, size_t bytes) {
  int iters = bench_iters(b, bytes), warmup = bench_warmup(b, bytes);
  MPI_Barrier(b->comm);
  for (int i = 0; i < warmup; i++) part_pingpong(b, r);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) part_pingpong(b, r);
  return (MPI_Wtime() - t0) * 1e6 / (2.0 * iters);
}

/* -c: two ping-pongs with fresh data, every byte that moved checked; -1 when -c is off. */
static long long validate(struct bench *b, struct pt2pt_bufs *p, struct part_reqs *r,
                          size_t bytes) {
  long long wrong = 0;
  int peer = 1 - b->rank;
  if (!b->opt.validate) return -1;
  for (int round = 1; round <= 2; round++) {
    bench_buf_fill(&p->send, 0, bytes, bench_seed(b->rank, peer, round));
    bench_buf_poison(&p->recv, bytes);
    part_pingpong(b, r);
    wrong += bench_buf_check(b, &p->recv, 0, bytes, bench_seed(peer, b->rank, round));
  }
  return wrong;
}

static int run(struct bench *b) {
  struct pt2pt_bufs p;
  bench_add_column(b, "Latency (us)", "latency_us", 0, 2);
  if (b->opt.full) bench_add_full_columns(b, "Latency (us)");
  bench_add_note(b, "# Partitions per message: %d (marked ready one by one)", b->opt.partitions);
  bench_print_header(b);
  pt2pt_alloc(b, &p, b->opt.max_size, b->rank);
  for (size_t s = bench_size_first(b); s; s = bench_size_next(b, s)) {
    size_t bytes = bench_size_bytes(s);
    if (bytes < (size_t)b->opt.partitions) continue;
    bytes -= bytes % (size_t)b->opt.partitions;
    struct part_reqs r;
    struct bench_stat st;
    part_init(b, &p, bytes, &r);
    bench_stats(b, latency_us(b, &r, bytes), 1, &st);
    double v[4] = {st.avg, st.min, st.max, bench_iters(b, bytes)};
    bench_row(b, (long long)bytes, v, validate(b, &p, &r, bytes));
    part_free(&r);
  }
  pt2pt_free(&p);
  return bench_finish(b);
}
#endif

int main(int argc, char **argv) {
  struct bench b;
  int status = bench_start(&b, &kSpec, &argc, &argv);
  if (status >= 0) return status;
#if MPI_VERSION >= 4
  return run(&b);
#else
  if (b.rank == 0)
    fprintf(stderr, "part_latency: not supported by this MPI (its mpi.h is MPI-%d: no "
            "partitioned communication)\n", MPI_VERSION);
  MPI_Finalize();
  return BENCH_EXIT_SKIP;
#endif
}
