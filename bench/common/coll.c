/* Collective drivers.
 *
 * Blocking: each timed call is bracketed by MPI_Wtime on every rank, with an untimed barrier
 * between calls so that one call's stragglers do not overlap the next; the table shows the
 * average time per call over ranks (and with -f the minimum, maximum and iteration count).
 *
 * -q stream (a program with an enqueue form): every call is enqueued on the CUDA stream, and
 * the time from the first timed call to the stream's end, divided by the calls, is the time
 * per call (there is no per-call bracket on the host: the host does not wait for each call).
 *
 * Nonblocking (OSU's method): first the pure communication time (start + wait) is measured;
 * then each call is started, the rank computes for that long (the largest pure time over
 * ranks), optionally calling MPI_Test, and waits. Overlap is the share of the communication
 * hidden behind the computation: 100 * (1 - (overall - compute) / pure), at least 0. */
#include "coll.h"

#include <stdlib.h>

static void ctx_init(struct coll_ctx *c, struct bench *b, const struct coll_op *op) {
  /* Reductions work on whole floats: sizes below one float would reduce nothing. */
  if (op->reduction && b->opt.min_size < sizeof(float)) b->opt.min_size = sizeof(float);
  c->b = b;
  c->root = 0;
  c->elem = op->reduction ? sizeof(float) : 1;
  c->counts = calloc((size_t)b->size, sizeof(int));
  c->displs = calloc((size_t)b->size, sizeof(int));
  if (!c->counts || !c->displs) bench_fail(b, "out of memory");
  c->bytes = b->opt.max_size;
  c->count = c->bytes / c->elem;
  enum bench_mem mem = b->opt.accel ? BENCH_MEM_DEVICE : BENCH_MEM_HOST;
  bench_buf_alloc(b, &c->send, op->send_bytes(c), mem);
  bench_buf_alloc(b, &c->recv, op->recv_bytes(c), mem);
}

static void ctx_free(struct coll_ctx *c) {
  bench_buf_free(&c->send);
  bench_buf_free(&c->recv);
  free(c->counts);
  free(c->displs);
}

static void ctx_size(struct coll_ctx *c, const struct coll_op *op, size_t bytes) {
  c->bytes = bytes;
  c->count = bytes / c->elem;
  if (op->prepare) op->prepare(c);
}

/* -c: two rounds with different data, each on freshly poisoned receive buffers. */
static long long validate(struct coll_ctx *c, const struct coll_op *op, int nonblocking) {
  long long wrong = 0;
  if (!c->b->opt.validate) return -1;
  for (int round = 1; round <= 2; round++) {
    op->fill(c, round);
    MPI_Barrier(c->b->comm);
    if (nonblocking) {
      MPI_Request req;
      op->start(c, &req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
    } else if (c->b->opt.queue == BENCH_QUEUE_STREAM) {
      op->enqueue(c);
      bench_stream_sync(c->b);
    } else {
      op->run(c);
    }
    wrong += op->check(c, round);
  }
  return wrong;
}

static double time_enqueued(struct coll_ctx *c, const struct coll_op *op, int iters, int warmup) {
  MPI_Barrier(c->b->comm);
  for (int i = 0; i < warmup; i++) op->enqueue(c);
  bench_stream_sync(c->b);
  MPI_Barrier(c->b->comm);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; i++) op->enqueue(c);
  bench_stream_sync(c->b);
  return (MPI_Wtime() - t0) / iters;
}

static double time_blocking(struct coll_ctx *c, const struct coll_op *op, int iters, int warmup) {
  if (c->b->opt.queue == BENCH_QUEUE_STREAM) return time_enqueued(c, op, iters, warmup);
  double total = 0.0;
  for (int i = 0; i < warmup + iters; i++) {
    MPI_Barrier(c->b->comm);
    double t0 = MPI_Wtime();
    op->run(c);
    if (i >= warmup) total += MPI_Wtime() - t0;
  }
  return total / iters;
}

static void add_latency_columns(struct bench *b) {
  bench_add_column(b, "Avg Latency(us)", "latency_us", 0, 2);
  if (b->opt.full) bench_add_full_columns(b, "Latency(us)");
}

int bench_coll_main(const struct bench_spec *spec, const struct coll_op *op, int argc,
                    char **argv) {
  struct bench b;
  struct coll_ctx c;
  int status = bench_start(&b, spec, &argc, &argv);
  if (status >= 0) return status;
  add_latency_columns(&b);
  bench_print_header(&b);
  ctx_init(&c, &b, op);
  if (b.opt.queue == BENCH_QUEUE_STREAM) bench_stream_open(&b);
  for (size_t s = bench_size_first(&b); s; s = bench_size_next(&b, s)) {
    size_t bytes = bench_size_bytes(s);
    int iters = bench_iters(&b, bytes);
    struct bench_stat st;
    ctx_size(&c, op, bytes);
    bench_stats(&b, time_blocking(&c, op, iters, bench_warmup(&b, bytes)) * 1e6, 1, &st);
    double v[4] = {st.avg, st.min, st.max, iters};
    bench_row(&b, (long long)bytes, v, validate(&c, op, 0));
  }
  ctx_free(&c);
  return bench_finish(&b);
}

double bench_compute(double seconds, MPI_Request *req, int ntest) {
  double start = MPI_Wtime(), in_test = 0.0;
  int done_tests = 0, flag = 0;
  for (;;) {
    double now = MPI_Wtime();
    if (now - start >= seconds) break;
    /* Test number k is due once k/ntest of the time has passed. */
    if (ntest > 0 && done_tests < ntest && now - start >= seconds * done_tests / ntest) {
      MPI_Test(req, &flag, MPI_STATUS_IGNORE);
      in_test += MPI_Wtime() - now;
      done_tests++;
    }
  }
  return in_test;
}

struct nbc_times {
  double overall, compute, init, test, wait, pure;
};

static double time_pure(struct coll_ctx *c, const struct coll_op *op, int iters, int warmup) {
  double total = 0.0;
  for (int i = 0; i < warmup + iters; i++) {
    MPI_Request req;
    MPI_Barrier(c->b->comm);
    double t0 = MPI_Wtime();
    op->start(c, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (i >= warmup) total += MPI_Wtime() - t0;
  }
  return total / iters;
}

static void time_overlap(struct coll_ctx *c, const struct coll_op *op, int iters, int warmup,
                         struct nbc_times *t) {
  double target = bench_max_all(c->b, t->pure);
  t->overall = t->compute = t->init = t->test = t->wait = 0.0;
  for (int i = 0; i < warmup + iters; i++) {
    MPI_Request req;
    MPI_Barrier(c->b->comm);
    double t0 = MPI_Wtime();
    op->start(c, &req);
    double t1 = MPI_Wtime();
    double in_test = bench_compute(target, &req, c->b->opt.test_calls);
    double t2 = MPI_Wtime();
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    double t3 = MPI_Wtime();
    if (i < warmup) continue;
    t->init += t1 - t0;
    t->compute += t2 - t1 - in_test;
    t->test += in_test;
    t->wait += t3 - t2;
    t->overall += t3 - t0;
  }
}

static void add_nbc_columns(struct bench *b) {
  bench_add_note(b, "# Overall = Coll. Init + Compute + MPI_Test + MPI_Wait");
  bench_add_column(b, "Overall(us)", "overall_us", 0, 2);
  bench_add_column(b, "Compute(us)", "compute_us", 0, 2);
  bench_add_column(b, "Coll. Init(us)", "init_us", 0, 2);
  bench_add_column(b, "MPI_Test(us)", "test_us", 0, 2);
  bench_add_column(b, "MPI_Wait(us)", "wait_us", 0, 2);
  bench_add_column(b, "Pure Comm.(us)", "pure_comm_us", 0, 2);
  if (b->opt.full) {
    bench_add_column(b, "Min Comm.(us)", "min_comm_us", 0, 2);
    bench_add_column(b, "Max Comm.(us)", "max_comm_us", 0, 2);
  }
  bench_add_column(b, "Overlap(%)", "overlap_pct", 0, 2);
}

/* Averages over ranks of the per-call times (in us) and the overlap, in column order. */
static int nbc_values(struct bench *b, const struct nbc_times *t, int iters, double *v) {
  const double per_call[6] = {t->overall, t->compute, t->init, t->test, t->wait, 0};
  struct bench_stat st;
  int n = 0;
  for (int k = 0; k < 5; k++, n++) {
    bench_stats(b, per_call[k] / iters * 1e6, 1, &st);
    v[n] = st.avg;
  }
  bench_stats(b, t->pure * 1e6, 1, &st);
  v[n++] = st.avg;
  if (b->opt.full) {
    v[n++] = st.min;
    v[n++] = st.max;
  }
  double overlap = st.avg > 0 ? 100.0 * (1.0 - (v[0] - v[1]) / st.avg) : 0.0;
  v[n++] = overlap < 0 ? 0 : overlap;
  return n;
}

int bench_nbc_main(const struct bench_spec *spec, const struct coll_op *op, int argc, char **argv) {
  struct bench b;
  struct coll_ctx c;
  int status = bench_start(&b, spec, &argc, &argv);
  if (status >= 0) return status;
  add_nbc_columns(&b);
  bench_print_header(&b);
  ctx_init(&c, &b, op);
  for (size_t s = bench_size_first(&b); s; s = bench_size_next(&b, s)) {
    size_t bytes = bench_size_bytes(s);
    int iters = bench_iters(&b, bytes), warmup = bench_warmup(&b, bytes);
    struct nbc_times t;
    double v[BENCH_MAX_COLUMNS];
    ctx_size(&c, op, bytes);
    t.pure = time_pure(&c, op, iters, warmup);
    time_overlap(&c, op, iters, warmup, &t);
    nbc_values(&b, &t, iters, v);
    bench_row(&b, (long long)bytes, v, validate(&c, op, 1));
  }
  ctx_free(&c);
  return bench_finish(&b);
}
