/* osu_bibw: bidirectional bandwidth. Both ranks post windows of -W receives and -W sends at
 * once; bandwidth = bytes moved in both directions / time on rank 0. */
#include "pt2pt.h"

static const struct bench_spec kSpec = {
    .name = "osu_bibw",
    .title = "OSU MPI Bi-Directional Bandwidth Test",
    .accepts = BENCH_OPTS_COMMON | BENCH_OPT_WINDOW | BENCH_OPT_ACCEL | BENCH_OPT_PLACEMENT,
    .ranks = BENCH_RANKS_TWO,
    .min_size = 1,
    .max_size = 4 << 20,
    .iters_small = 100,
    .iters_large = 20,
    .warmup_small = 10,
    .warmup_large = 2,
    .large_size = 8192,
};

static double bandwidth_mbps(struct bench *b, struct pt2pt_bufs *p, size_t bytes) {
  int iters = bench_iters(b, bytes), warmup = bench_warmup(b, bytes), w = b->opt.window;
  double t0 = 0.0;
  MPI_Barrier(b->comm);
  for (int i = 0; i < warmup + iters; i++) {
    if (i == warmup) t0 = MPI_Wtime();
    pt2pt_window(b, p, bytes, w, 1 - b->rank, PT2PT_SEND | PT2PT_RECV, 0);
  }
  double t = MPI_Wtime() - t0;
  return 2.0 * (double)bytes * w * iters / t / 1e6;
}

int main(int argc, char **argv) {
  struct bench b;
  struct pt2pt_bufs p;
  int status = bench_start(&b, &kSpec, &argc, &argv);
  if (status >= 0) return status;
  bench_add_column(&b, "Bandwidth (MB/s)", "bandwidth_mbps", 0, 2);
  bench_print_header(&b);
  pt2pt_alloc(&b, &p, b.opt.max_size, b.rank);
  for (size_t s = bench_size_first(&b); s; s = bench_size_next(&b, s)) {
    size_t bytes = bench_size_bytes(s);
    double v[1] = {bandwidth_mbps(&b, &p, bytes)};
    bench_row(&b, (long long)bytes, v,
              pt2pt_validate_window(&b, bytes, b.opt.window, 1 - b.rank, PT2PT_SEND | PT2PT_RECV,
                                    b.rank));
  }
  pt2pt_free(&p);
  return bench_finish(&b);
}
