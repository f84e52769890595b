/* The one-sided benchmarks' windows, synchronizations, timing loops and validation (rma.h). */
#include "rma.h"

#include <stdlib.h>
#include <string.h>

static const char *const kWinCalls[] = {"MPI_Win_create", "MPI_Win_allocate",
                                        "MPI_Win_create_dynamic"};
static const char *const kSyncCalls[] = {"MPI_Win_lock/unlock", "MPI_Win_post/start/complete/wait",
                                         "MPI_Win_fence",       "MPI_Win_flush",
                                         "MPI_Win_flush_local", "MPI_Win_lock_all/unlock_all"};

void rma_notes(struct bench *b) {
  bench_add_note(b, "# Window creation: %s", kWinCalls[b->opt.win]);
  bench_add_note(b, "# Synchronization: %s", kSyncCalls[b->opt.sync]);
}

static void *page_aligned(struct bench *b, size_t bytes) {
  void *p = NULL;
  if (posix_memalign(&p, 4096, bytes ? bytes : 1) != 0)
    bench_fail(b, "cannot allocate %zu bytes of host memory", bytes);
  memset(p, 0, bytes ? bytes : 1);
  return p;
}

void rma_open(struct bench *b, struct rma *r, size_t bytes) {
  memset(r, 0, sizeof *r);
  r->bytes = bytes;
  r->origin = page_aligned(b, bytes);
  MPI_Aint size = (MPI_Aint)bytes;
  if (b->opt.win == BENCH_WIN_ALLOCATE) {
    MPI_Win_allocate(size, 1, MPI_INFO_NULL, b->comm, &r->base, &r->win);
    memset(r->base, 0, bytes);
  } else {
    r->owned = r->base = page_aligned(b, bytes);
    if (b->opt.win == BENCH_WIN_CREATE) {
      MPI_Win_create(r->base, size, 1, MPI_INFO_NULL, b->comm, &r->win);
    } else {
      MPI_Win_create_dynamic(MPI_INFO_NULL, b->comm, &r->win);
      MPI_Win_attach(r->win, r->base, size ? size : 1);
      r->attached = 1;
      MPI_Aint mine;
      MPI_Get_address(r->base, &mine);
      MPI_Sendrecv(&mine, 1, MPI_AINT, 1 - b->rank, 0, &r->disp, 1, MPI_AINT, 1 - b->rank, 0,
                   b->comm, MPI_STATUS_IGNORE);
    }
  }
  MPI_Group all;
  int peer = 1 - b->rank;
  MPI_Comm_group(b->comm, &all);
  MPI_Group_incl(all, 1, &peer, &r->peer);
  MPI_Group_free(&all);
}

void rma_close(struct rma *r) {
  MPI_Group_free(&r->peer);
  if (r->attached) MPI_Win_detach(r->win, r->base);
  MPI_Win_free(&r->win);
  free(r->owned);
  free(r->origin);
}

/* n operations of `bytes` to `target`. */
static void issue(struct rma *r, enum rma_op op, size_t bytes, int n, int target) {
  int count = (int)bytes;
  for (int i = 0; i < n; i++) {
    if (op == RMA_PUT)
      MPI_Put(r->origin, count, MPI_CHAR, target, r->disp, count, MPI_CHAR, r->win);
    else if (op == RMA_GET)
      MPI_Get(r->origin, count, MPI_CHAR, target, r->disp, count, MPI_CHAR, r->win);
    else
      MPI_Accumulate(r->origin, count, MPI_UNSIGNED_CHAR, target, r->disp, count, MPI_UNSIGNED_CHAR,
                     MPI_SUM, r->win);
  }
}

static int is_active(enum bench_sync s) { return s == BENCH_SYNC_FENCE || s == BENCH_SYNC_PSCW; }
static int holds_lock(enum bench_sync s) {
  return s == BENCH_SYNC_FLUSH || s == BENCH_SYNC_FLUSH_LOCAL;
}

/* fence and pscw, both ranks: rank 0 issues n operations to rank 1, then, with `two_way`,
 * rank 1 n back to rank 0. */
static void active_iteration(struct bench *b, struct rma *r, enum rma_op op, size_t bytes, int n,
                             int two_way) {
  int turns = two_way ? 2 : 1;
  if (b->opt.sync == BENCH_SYNC_FENCE) {
    MPI_Win_fence(0, r->win);
    for (int turn = 0; turn < turns; turn++) {
      if (b->rank == turn) issue(r, op, bytes, n, 1 - turn);
      MPI_Win_fence(0, r->win);
    }
    return;
  }
  for (int turn = 0; turn < turns; turn++) {
    if (b->rank == turn) {
      MPI_Win_start(r->peer, 0, r->win);
      issue(r, op, bytes, n, 1 - turn);
      MPI_Win_complete(r->win);
    } else {
      MPI_Win_post(r->peer, 0, r->win);
      MPI_Win_wait(r->win);
    }
  }
}

/* The passive kinds, rank 0 only: n operations to rank 1 and their completion. */
static void passive_iteration(struct bench *b, struct rma *r, enum rma_op op, size_t bytes, int n) {
  switch (b->opt.sync) {
    case BENCH_SYNC_LOCK:
      MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, r->win);
      issue(r, op, bytes, n, 1);
      MPI_Win_unlock(1, r->win);
      break;
    case BENCH_SYNC_LOCK_ALL:
      MPI_Win_lock_all(0, r->win);
      issue(r, op, bytes, n, 1);
      MPI_Win_unlock_all(r->win);
      break;
    case BENCH_SYNC_FLUSH_LOCAL:
      issue(r, op, bytes, n, 1);
      MPI_Win_flush_local(1, r->win);
      break;
    default:
      issue(r, op, bytes, n, 1);
      MPI_Win_flush(1, r->win);
      break;
  }
}

/* Seconds per iteration of n operations (after the warm-up), as rank 0 measured them. */
static double timed(struct bench *b, struct rma *r, enum rma_op op, size_t bytes, int n,
                    int two_way) {
  int iters = bench_iters(b, bytes), warmup = bench_warmup(b, bytes);
  enum bench_sync s = b->opt.sync;
  double t0 = 0, t = 0;
  MPI_Barrier(b->comm);
  if (is_active(s)) {
    for (int i = 0; i < warmup + iters; i++) {
      if (i == warmup) t0 = MPI_Wtime();
      active_iteration(b, r, op, bytes, n, two_way);
    }
    t = MPI_Wtime() - t0;
  } else if (b->rank == 0) {
    if (holds_lock(s)) MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, r->win);
    for (int i = 0; i < warmup + iters; i++) {
      if (i == warmup) t0 = MPI_Wtime();
      passive_iteration(b, r, op, bytes, n);
    }
    t = MPI_Wtime() - t0;
    if (holds_lock(s)) MPI_Win_unlock(1, r->win);
  }
  MPI_Barrier(b->comm);
  return t / iters;
}

double rma_latency_us(struct bench *b, struct rma *r, enum rma_op op, size_t bytes) {
  /* fence and pscw time an operation each way per iteration, as OSU does */
  int two_way = is_active(b->opt.sync);
  return timed(b, r, op, bytes, 1, two_way) * 1e6 / (two_way ? 2 : 1);
}

double rma_bandwidth(struct bench *b, struct rma *r, enum rma_op op, size_t bytes) {
  int w = b->opt.window;
  double t = timed(b, r, op, bytes, w, 0);
  return t > 0 ? (double)bytes * w / t / 1e6 : 0;
}

/* Checks `bytes` of p against seed (after the corruption switch). */
static long long check(const struct bench *b, void *p, size_t bytes, unsigned seed) {
  if (b->opt.corrupt) bench_pattern_corrupt(p, bytes);
  return bench_pattern_check(p, bytes, seed);
}

/* Around the target's own loads and stores of its window memory: with the passive kinds, a lock
 * of its own window (the standard's way to see what the origins' epochs put there; MPICH
 * applies small puts only then); with fence and pscw the window is outside any epoch here. */
static void own_access(struct bench *b, struct rma *r, int begin) {
  if (is_active(b->opt.sync)) return;
  if (begin)
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, b->rank, 0, r->win);
  else
    MPI_Win_unlock(b->rank, r->win);
}

long long rma_validate(struct bench *b, struct rma *r, enum rma_op op, size_t bytes) {
  static int round = 0;
  if (!b->opt.validate) return -1;
  unsigned seed = bench_seed(op == RMA_GET ? 1 : 0, op == RMA_GET ? 0 : 1, ++round);
  /* The data comes from rank 1's window (get) or rank 0's buffer (put, accumulate); what
   * receives it starts poisoned (an accumulate's target at 0, so that the sum is the data). */
  if (b->rank == 1) {
    own_access(b, r, 1);
    if (op == RMA_GET)
      bench_pattern_fill(r->base, bytes, seed);
    else
      bench_pattern_poison(r->base, bytes);
    own_access(b, r, 0);
  } else if (op == RMA_GET) {
    bench_pattern_poison(r->origin, bytes);
  } else {
    bench_pattern_fill(r->origin, bytes, seed);
  }
  MPI_Barrier(b->comm);
  if (is_active(b->opt.sync)) {
    active_iteration(b, r, op, bytes, 1, 0);
  } else if (b->rank == 0) {
    if (holds_lock(b->opt.sync)) MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, r->win);
    passive_iteration(b, r, op, bytes, 1);
    if (holds_lock(b->opt.sync)) MPI_Win_unlock(1, r->win);
  }
  MPI_Barrier(b->comm);
  if (op == RMA_GET) return b->rank == 0 ? check(b, r->origin, bytes, seed) : 0;
  if (b->rank != 1) return 0;
  own_access(b, r, 1);
  long long wrong = check(b, r->base, bytes, seed);
  own_access(b, r, 0);
  return wrong;
}

int rma_main(const struct bench_spec *spec, enum rma_op op, int bandwidth, int argc, char **argv) {
  struct bench b;
  int status = bench_start(&b, spec, &argc, &argv);
  if (status >= 0) return status;
  rma_notes(&b);
  if (bandwidth) {
    bench_add_note(&b, "# Window size: %d", b.opt.window);
    bench_add_column(&b, "Bandwidth (MB/s)", "bandwidth_mbps", 0, 2);
  } else {
    bench_add_column(&b, "Latency (us)", "latency_us", 0, 2);
  }
  bench_print_header(&b);
  for (size_t s = bench_size_first(&b); s; s = bench_size_next(&b, s)) {
    size_t bytes = bench_size_bytes(s);
    struct rma r;
    rma_open(&b, &r, bytes);
    double v = bandwidth ? rma_bandwidth(&b, &r, op, bytes) : rma_latency_us(&b, &r, op, bytes);
    long long errors = rma_validate(&b, &r, op, bytes);
    rma_close(&r);
    bench_row(&b, (long long)bytes, &v, errors);
  }
  return bench_finish(&b);
}
