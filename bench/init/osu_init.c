/* osu_init: time of MPI_Init on each rank (minimum, maximum and average over ranks, in ms).
 * Uses only what a minimal MPI offers, so it runs on gpurun from its first version. */
#include <stdio.h>
#include <time.h>

#include "bench.h"

static const struct bench_spec kSpec = {
    .name = "osu_init",
    .title = "OSU MPI Init Test",
    .accepts = 0,
    .ranks = BENCH_RANKS_ANY,
    .sizeless = 1,
    .custom_text = 1,
};

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
  struct bench b;
  struct bench_stat st;
  int parse = bench_parse_options(&b.opt, &kSpec, argc, argv);
  double t0 = now_ms();
  MPI_Init(&argc, &argv);
  double init_ms = now_ms() - t0;
  int status = bench_start_after_init(&b, &kSpec, parse);
  if (status >= 0) return status;
  bench_add_column(&b, "Avg (ms)", "avg_ms", 0, 2);
  bench_add_column(&b, "Min (ms)", "min_ms", 0, 2);
  bench_add_column(&b, "Max (ms)", "max_ms", 0, 2);
  bench_print_header(&b);
  bench_stats(&b, init_ms, 1, &st);
  if (b.rank == 0 && b.opt.format == BENCH_FORMAT_TEXT)
    printf("nprocs: %d, min: %.0f ms, max: %.0f ms, avg: %.0f ms\n", b.size, st.min, st.max,
           st.avg);
  double v[3] = {st.avg, st.min, st.max};
  bench_row(&b, -1, v, -1);
  return bench_finish(&b);
}
