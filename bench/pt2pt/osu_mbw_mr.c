/* osu_mbw_mr: aggregate bandwidth and message rate of -p pairs sending at once. Rank i < pairs
 * sends windows of -W messages to rank i + pairs, which acknowledges each window. The rate
 * counts every pair's messages over the slowest sender's time. */
#include "pt2pt.h"

static const struct bench_spec kSpec = {
    .name = "osu_mbw_mr",
    .title = "OSU MPI Multiple Bandwidth / Message Rate Test",
    .accepts = BENCH_OPTS_COMMON | BENCH_OPT_WINDOW | BENCH_OPT_PAIRS | BENCH_OPT_ACCEL |
               BENCH_OPT_PLACEMENT,
    .ranks = BENCH_RANKS_PAIRS,
    .min_size = 1,
    .max_size = 4 << 20,
    .iters_small = 100,
    .iters_large = 20,
    .warmup_small = 10,
    .warmup_large = 2,
    .large_size = 8192,
};

/* Seconds this rank spent in the timed loop (0 for ranks outside the pairs). */
static double run_pairs(struct bench *b, struct pt2pt_bufs *p, size_t bytes, int peer, int side) {
  int iters = bench_iters(b, bytes), warmup = bench_warmup(b, bytes), w = b->opt.window;
  char ack = 0;
  double t0 = 0.0;
  MPI_Barrier(b->comm);
  if (peer < 0) return 0.0;
  for (int i = 0; i < warmup + iters; i++) {
    if (i == warmup) t0 = MPI_Wtime();
    if (side == 0) {
      pt2pt_window(b, p, bytes, w, peer, PT2PT_SEND, 0);
      MPI_Recv(&ack, 1, MPI_CHAR, peer, PT2PT_ACK_TAG, b->comm, MPI_STATUS_IGNORE);
    } else {
      pt2pt_window(b, p, bytes, w, peer, PT2PT_RECV, 0);
      MPI_Send(&ack, 1, MPI_CHAR, peer, PT2PT_ACK_TAG, b->comm);
    }
  }
  return side == 0 ? MPI_Wtime() - t0 : 0.0;
}

int main(int argc, char **argv) {
  struct bench b;
  struct pt2pt_bufs p;
  int status = bench_start(&b, &kSpec, &argc, &argv);
  if (status >= 0) return status;
  int pairs = b.opt.pairs, side = b.rank < pairs ? 0 : 1;
  int peer = b.rank < pairs ? b.rank + pairs : b.rank < 2 * pairs ? b.rank - pairs : -1;
  bench_add_note(&b, "# [ pairs: %d ] [ window size: %d ]", pairs, b.opt.window);
  bench_add_column(&b, "MB/s", "bandwidth_mbps", 0, 2);
  bench_add_column(&b, "Messages/s", "message_rate", 0, 2);
  bench_print_header(&b);
  pt2pt_alloc(&b, &p, b.opt.max_size, side);
  for (size_t s = bench_size_first(&b); s; s = bench_size_next(&b, s)) {
    size_t bytes = bench_size_bytes(s);
    double t = bench_max_all(&b, run_pairs(&b, &p, bytes, peer, side));
    double msgs = (double)pairs * b.opt.window * bench_iters(&b, bytes);
    double v[2] = {msgs * (double)bytes / t / 1e6, msgs / t};
    long long wrong = peer < 0 ? (b.opt.validate ? 0 : -1)
                               : pt2pt_validate_window(&b, bytes, b.opt.window, peer,
                                                       side == 0 ? PT2PT_SEND : PT2PT_RECV, side);
    bench_row(&b, (long long)bytes, v, wrong);
  }
  pt2pt_free(&p);
  return bench_finish(&b);
}
