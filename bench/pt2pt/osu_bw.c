/* osu_bw: one-way bandwidth. Rank 0 sends windows of -W nonblocking messages to rank 1, which
 * acknowledges each window with a short message; bandwidth = bytes sent / time on rank 0.
 * With -q stream the windows and acknowledgements are enqueued on a CUDA stream
 * (MPIX_Isend/Irecv_enqueue, MPIX_Waitall_enqueue) and the time runs until the stream has done
 * them all. */
#include "pt2pt.h"

static const struct bench_spec kSpec = {
    .name = "osu_bw",
    .title = "OSU MPI Bandwidth Test",
    .accepts = BENCH_OPTS_COMMON | BENCH_OPT_WINDOW | BENCH_OPT_ACCEL | BENCH_OPT_PLACEMENT |
               BENCH_OPT_STREAM,
    .ranks = BENCH_RANKS_TWO,
    .min_size = 1,
    .max_size = 4 << 20,
    .iters_small = 100,
    .iters_large = 20,
    .warmup_small = 10,
    .warmup_large = 2,
    .large_size = 8192,
};

/* One window and its acknowledgement. */
static void window(struct bench *b, struct pt2pt_bufs *p, size_t bytes) {
  int peer = 1 - b->rank, sender = b->rank == 0;
  pt2pt_window(b, p, bytes, b->opt.window, peer, sender ? PT2PT_SEND : PT2PT_RECV, 0);
  pt2pt_ack(b, peer, !sender);
}

static double bandwidth_mbps(struct bench *b, struct pt2pt_bufs *p, size_t bytes) {
  int iters = bench_iters(b, bytes), warmup = bench_warmup(b, bytes), w = b->opt.window;
  MPI_Barrier(b->comm);
  for (int i = 0; i < warmup; i++) window(b, p, bytes);
  bench_stream_sync(b);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) window(b, p, bytes);
  bench_stream_sync(b);
  double t = MPI_Wtime() - t0;
  return (double)bytes * w * iters / t / 1e6;
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
    double v[1] = {bandwidth_mbps(&b, &p, bytes)}; /* rank 0's value is printed */
    int flags = b.rank == 0 ? PT2PT_SEND : PT2PT_RECV;
    bench_row(&b, (long long)bytes, v,
              pt2pt_validate_window(&b, bytes, b.opt.window, 1 - b.rank, flags, b.rank));
  }
  pt2pt_free(&p);
  return bench_finish(&b);
}
