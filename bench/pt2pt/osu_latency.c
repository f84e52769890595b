/* osu_latency: half the round-trip time of a blocking ping-pong between two ranks. With
 * -q stream the ping-pongs are enqueued on a CUDA stream (MPIX_Send/Recv_enqueue) and the time
 * runs until the stream has done them all. */
#include "pt2pt.h"

static const struct bench_spec kSpec = {
    .name = "osu_latency",
    .title = "OSU MPI Latency Test",
    .accepts = BENCH_OPTS_COMMON | BENCH_OPT_FULL | BENCH_OPT_ACCEL | BENCH_OPT_PLACEMENT |
               BENCH_OPT_STREAM,
    .ranks = BENCH_RANKS_TWO,
    .min_size = 0,
    .max_size = 4 << 20,
    .iters_small = 10000,
    .iters_large = 1000,
    .warmup_small = 1000,
    .warmup_large = 100,
    .large_size = 8192,
};

static double latency_us(struct bench *b, struct pt2pt_bufs *p, size_t bytes) {
  int iters = bench_iters(b, bytes), warmup = bench_warmup(b, bytes);
  MPI_Barrier(b->comm);
  for (int i = 0; i < warmup; i++) pt2pt_pingpong(b, p, bytes, 1 - b->rank, b->rank == 0);
  bench_stream_sync(b);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) pt2pt_pingpong(b, p, bytes, 1 - b->rank, b->rank == 0);
  bench_stream_sync(b);
  return (MPI_Wtime() - t0) * 1e6 / (2.0 * iters);
}

int main(int argc, char **argv) {
  struct bench b;
  struct pt2pt_bufs p;
  int status = bench_start(&b, &kSpec, &argc, &argv);
  if (status >= 0) return status;
  bench_add_column(&b, "Latency (us)", "latency_us", 0, 2);
  if (b.opt.full) bench_add_full_columns(&b, "Latency (us)");
  bench_print_header(&b);
  pt2pt_alloc(&b, &p, b.opt.max_size, b.rank);
  for (size_t s = bench_size_first(&b); s; s = bench_size_next(&b, s)) {
    size_t bytes = bench_size_bytes(s);
    struct bench_stat st;
    bench_stats(&b, latency_us(&b, &p, bytes), 1, &st);
    double v[4] = {st.avg, st.min, st.max, bench_iters(&b, bytes)};
    bench_row(&b, (long long)bytes, v,
              pt2pt_validate_pingpong(&b, &p, bytes, 1 - b.rank, b.rank == 0));
  }
  pt2pt_free(&p);
  return bench_finish(&b);
}
