/* osu_latency_mt: ping-pong latency with several threads per rank (MPI_THREAD_MULTIPLE). Each
 * of rank 0's sender threads ping-pongs with rank 1, whose receiver threads share the incoming
 * messages; the table shows the average over sender threads. With -c, a separate round gives
 * each sender thread its own tag and checks every byte both ways. */
#include <pthread.h>
#include <stdlib.h>

#include "pt2pt.h"

enum { kTimedTag = 10, kReplyTag = 11, kCheckTag = 100 };

static const struct bench_spec kSpec = {
    .name = "osu_latency_mt",
    .title = "OSU MPI Multi-threaded Latency Test",
    .accepts = BENCH_OPTS_COMMON | BENCH_OPT_THREADS | BENCH_OPT_ACCEL | BENCH_OPT_PLACEMENT,
    .ranks = BENCH_RANKS_TWO,
    .min_size = 0,
    .max_size = 4 << 20,
    .iters_small = 10000,
    .iters_large = 1000,
    .warmup_small = 1000,
    .warmup_large = 100,
    .large_size = 8192,
};

struct worker {
  struct bench *b;
  struct pt2pt_bufs bufs;
  int id;
  size_t bytes;
  long exchanges; /* timed + warm-up ping-pongs this thread takes part in */
  int warmup;
  double seconds;
  long long wrong;
};

static void sender_check(struct worker *w, int tag) {
  struct bench *b = w->b;
  bench_buf_fill(&w->bufs.send, 0, w->bytes, bench_seed(0, 1, tag));
  bench_buf_poison(&w->bufs.recv, w->bytes);
  MPI_Send(w->bufs.send.ptr, (int)w->bytes, MPI_CHAR, 1, tag, b->comm);
  MPI_Recv(w->bufs.recv.ptr, (int)w->bytes, MPI_CHAR, 1, tag, b->comm, MPI_STATUS_IGNORE);
  w->wrong += bench_buf_check(b, &w->bufs.recv, 0, w->bytes, bench_seed(1, 0, tag));
}

static void *sender(void *arg) {
  struct worker *w = arg;
  struct bench *b = w->b;
  int n = (int)w->bytes;
  double t0 = MPI_Wtime();
  for (long i = 0; i < w->exchanges; i++) {
    if (i == w->warmup) t0 = MPI_Wtime();
    MPI_Send(w->bufs.send.ptr, n, MPI_CHAR, 1, kTimedTag, b->comm);
    MPI_Recv(w->bufs.recv.ptr, n, MPI_CHAR, 1, kReplyTag, b->comm, MPI_STATUS_IGNORE);
  }
  w->seconds = MPI_Wtime() - t0;
  if (b->opt.validate) sender_check(w, kCheckTag + w->id);
  return NULL;
}

/* -c on rank 1: thread id answers the sender threads s with s % receivers == id. */
static void receiver_check(struct worker *w) {
  struct bench *b = w->b;
  for (int s = w->id; s < b->opt.send_threads; s += b->opt.recv_threads) {
    int tag = kCheckTag + s;
    bench_buf_poison(&w->bufs.recv, w->bytes);
    MPI_Recv(w->bufs.recv.ptr, (int)w->bytes, MPI_CHAR, 0, tag, b->comm, MPI_STATUS_IGNORE);
    w->wrong += bench_buf_check(b, &w->bufs.recv, 0, w->bytes, bench_seed(0, 1, tag));
    bench_buf_fill(&w->bufs.send, 0, w->bytes, bench_seed(1, 0, tag));
    MPI_Send(w->bufs.send.ptr, (int)w->bytes, MPI_CHAR, 0, tag, b->comm);
  }
}

static void *receiver(void *arg) {
  struct worker *w = arg;
  struct bench *b = w->b;
  int n = (int)w->bytes;
  for (long i = 0; i < w->exchanges; i++) {
    MPI_Recv(w->bufs.recv.ptr, n, MPI_CHAR, 0, kTimedTag, b->comm, MPI_STATUS_IGNORE);
    MPI_Send(w->bufs.send.ptr, n, MPI_CHAR, 0, kReplyTag, b->comm);
  }
  if (b->opt.validate) receiver_check(w);
  return NULL;
}

/* Runs one size on this rank's threads; returns the average latency of its sender threads. */
static double run_size(struct bench *b, struct worker *ws, int nthreads, size_t bytes) {
  int iters = bench_iters(b, bytes), warmup = bench_warmup(b, bytes);
  long total = (long)b->opt.send_threads * (iters + warmup);
  pthread_t tid[256];
  double sum = 0.0;
  MPI_Barrier(b->comm);
  for (int t = 0; t < nthreads; t++) {
    struct worker *w = &ws[t];
    w->bytes = bytes;
    w->warmup = warmup;
    /* rank 1 splits all sender threads' ping-pongs over its threads */
    w->exchanges = b->rank == 0 ? iters + warmup : total / nthreads + (t < total % nthreads);
    if (pthread_create(&tid[t], NULL, b->rank == 0 ? sender : receiver, w) != 0)
      bench_fail(b, "cannot start thread %d", t);
  }
  for (int t = 0; t < nthreads; t++) {
    pthread_join(tid[t], NULL);
    sum += ws[t].seconds * 1e6 / (2.0 * iters);
  }
  return sum / nthreads;
}

int main(int argc, char **argv) {
  struct bench b;
  int status = bench_start_thread(&b, &kSpec, &argc, &argv, MPI_THREAD_MULTIPLE);
  if (status >= 0) return status;
  int nthreads = b.rank == 0 ? b.opt.send_threads : b.opt.recv_threads;
  if (nthreads > 256) bench_fail(&b, "-t: at most 256 threads per rank");
  struct worker *ws = calloc((size_t)nthreads, sizeof *ws);
  if (!ws) bench_fail(&b, "out of memory");
  for (int t = 0; t < nthreads; t++) {
    ws[t].b = &b;
    ws[t].id = t;
    pt2pt_alloc(&b, &ws[t].bufs, b.opt.max_size, b.rank);
  }
  bench_add_note(&b, "# Number of Sender threads: %d", b.opt.send_threads);
  bench_add_note(&b, "# Number of Receiver threads: %d", b.opt.recv_threads);
  bench_add_column(&b, "Latency (us)", "latency_us", 0, 2);
  bench_print_header(&b);
  for (size_t s = bench_size_first(&b); s; s = bench_size_next(&b, s)) {
    size_t bytes = bench_size_bytes(s);
    struct bench_stat st;
    long long wrong = 0;
    for (int t = 0; t < nthreads; t++) ws[t].wrong = 0;
    bench_stats(&b, run_size(&b, ws, nthreads, bytes), b.rank == 0, &st);
    for (int t = 0; t < nthreads; t++) wrong += ws[t].wrong;
    double v[1] = {st.avg};
    bench_row(&b, (long long)bytes, v, b.opt.validate ? wrong : -1);
  }
  for (int t = 0; t < nthreads; t++) pt2pt_free(&ws[t].bufs);
  free(ws);
  return bench_finish(&b);
}
