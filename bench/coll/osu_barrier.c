/* osu_barrier: time per MPI_Barrier. Uses only what a minimal MPI offers (Init, Comm_rank,
 * Comm_size, Barrier, Wtime), so it runs on gpurun before its other collectives exist. */
#include "bench.h"

static const struct bench_spec kSpec = {
    .name = "osu_barrier",
    .title = "OSU MPI Barrier Latency Test",
    .accepts = BENCH_OPT_ITERS | BENCH_OPT_FULL | BENCH_OPT_QUEUE,
    .ranks = BENCH_RANKS_ANY,
    .iters_small = 1000,
    .iters_large = 1000,
    .warmup_small = 200,
    .warmup_large = 200,
    .sizeless = 1,
};

int main(int argc, char **argv) {
  struct bench b;
  struct bench_stat st;
  int status = bench_start(&b, &kSpec, &argc, &argv);
  if (status >= 0) return status;
  bench_add_column(&b, "Avg Latency(us)", "latency_us", 0, 2);
  if (b.opt.full) bench_add_full_columns(&b, "Latency(us)");
  bench_print_header(&b);
  int iters = bench_iters(&b, 0), warmup = bench_warmup(&b, 0);
  for (int i = 0; i < warmup; i++) MPI_Barrier(b.comm);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) MPI_Barrier(b.comm);
  bench_stats(&b, (MPI_Wtime() - t0) * 1e6 / iters, 1, &st);
  double v[4] = {st.avg, st.min, st.max, iters};
  bench_row(&b, -1, v, -1);
  return bench_finish(&b);
}
