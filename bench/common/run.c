/* Lifecycle of a benchmark program, message sizes, iteration counts, buffers and busy work. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "cuda_rt.h"
#include "internal.h"

void bench_fail(const struct bench *b, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "%s: rank %d: ", b->spec->name, b->rank);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  fflush(stderr);
  MPI_Abort(b->comm, 1);
  exit(1); /* MPI_Abort does not return; this keeps the compiler's noreturn check quiet */
}

/* Rank 0 prints what parsing found; returns the exit status, or -1 to go on. */
static int report_parse(struct bench *b, int parse_status) {
  FILE *out = b->rank == 0 ? stdout : NULL;
  FILE *err = b->rank == 0 ? stderr : NULL;
  switch (parse_status) {
    case BENCH_PARSE_OK:
      return -1;
    case BENCH_PARSE_HELP:
      if (out) bench_print_help(out, b->spec);
      return BENCH_EXIT_OK;
    case BENCH_PARSE_VERSION:
      if (out)
        printf("%s: gpurun bench suite %s, OSU %s output format\n", b->spec->name,
               BENCH_SUITE_VERSION, BENCH_OSU_FORMAT);
      return BENCH_EXIT_OK;
    default:
      if (err) fprintf(err, "%s: %s\n", b->spec->name, b->opt.error);
      return BENCH_EXIT_USAGE;
  }
}

/* -q stream needs MPIX streams in the MPI and a CUDA stream to enqueue on; returns the exit
 * status, or -1 to go on. */
static int check_queue(struct bench *b) {
  const char *why = NULL;
  if (b->opt.queue != BENCH_QUEUE_STREAM) return -1;
#if !defined(MPIX_STREAM_NULL) || defined(BENCH_MPI_MINIMAL)
  why = "not supported by this MPI (its mpi.h declares no MPIX streams)";
#else
  if (!b->opt.accel) why = "needs -d cuda (operations are enqueued on a CUDA stream)";
#endif
  if (!why) return -1;
  if (b->rank == 0) fprintf(stderr, "%s: -q stream: %s\n", b->spec->name, why);
  return BENCH_EXIT_USAGE;
}

/* Rank 0 explains a wrong rank count; returns the exit status, or -1 when it fits. */
static int check_ranks(struct bench *b) {
  const char *need = NULL;
  int pairs = b->opt.pairs > 0 ? b->opt.pairs : b->size / 2;
  switch (b->spec->ranks) {
    case BENCH_RANKS_ANY:
      break;
    case BENCH_RANKS_TWO:
      if (b->size != 2) need = "exactly two processes";
      break;
    case BENCH_RANKS_EVEN:
      if (b->size < 2 || b->size % 2) need = "an even number of processes";
      break;
    case BENCH_RANKS_PAIRS:
      if (b->size < 2 || pairs < 1 || 2 * pairs > b->size)
        need = "at least two processes, and at least 2 x pairs (-p) of them";
      break;
  }
  if (!need) {
    b->opt.pairs = pairs;
    return -1;
  }
  if (b->rank == 0)
    fprintf(stderr, "%s: this test requires %s (it has %d)\n", b->spec->name, need, b->size);
  return BENCH_EXIT_RANKS;
}

/* Opens the CUDA runtime on every rank when -d cuda; returns the exit status or -1. */
static int open_accelerator(struct bench *b) {
  char why[256] = "";
  b->device = -1;
  if (!b->opt.accel) return -1;
  int failed = bench_cuda_open(b->local_rank, &b->device, why, sizeof why) != 0;
  if (failed) fprintf(stderr, "%s: rank %d: -d cuda: %s\n", b->spec->name, b->rank, why);
  if (bench_max_all(b, failed) > 0) return BENCH_EXIT_NO_DEVICE;
  return -1;
}

int bench_start_after_init(struct bench *b, const struct bench_spec *spec, int parse_status) {
  int status;
  b->spec = spec;
  b->comm = MPI_COMM_WORLD;
  MPI_Comm_rank(b->comm, &b->rank);
  MPI_Comm_size(b->comm, &b->size);
  b->ncolumns = b->nnotes = b->nrows = 0;
  b->errors_total = 0;
  b->minimal_mpi = bench_minimal_mpi();
  b->device = -1;
  b->cuda_stream = NULL;
  b->queue_comm = MPI_COMM_NULL;
  status = report_parse(b, parse_status);
  if (status < 0) status = check_queue(b);
  if (status < 0) status = check_ranks(b);
  if (status < 0) {
    b->local_rank = bench_local_rank(b);
    status = open_accelerator(b);
  }
  if (status >= 0) {
    fflush(stdout);
    MPI_Finalize();
    return status;
  }
  if (b->minimal_mpi && b->size > 1)
    bench_add_note(b, "# Statistics are rank 0's only: this MPI has no MPI_Reduce yet");
  return -1;
}

int bench_start_thread(struct bench *b, const struct bench_spec *spec, int *argc, char ***argv,
                       int thread_level) {
  int parse = bench_parse_options(&b->opt, spec, *argc, *argv);
  if (thread_level >= 0) {
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(argc, argv, thread_level, &provided);
    if (provided < thread_level && parse == BENCH_PARSE_OK) {
      int rank;
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      if (rank == 0)
        fprintf(stderr, "%s: this MPI does not provide MPI_THREAD_MULTIPLE (it gives %d)\n",
                spec->name, provided);
      MPI_Finalize();
      return BENCH_EXIT_SKIP;
    }
  } else {
    MPI_Init(argc, argv);
  }
  return bench_start_after_init(b, spec, parse);
}

int bench_start(struct bench *b, const struct bench_spec *spec, int *argc, char ***argv) {
  return bench_start_thread(b, spec, argc, argv, -1);
}

size_t bench_size_first(const struct bench *b) {
  return b->opt.min_size == 0 ? BENCH_SIZE_ZERO : b->opt.min_size;
}

size_t bench_size_next(const struct bench *b, size_t s) {
  size_t next = s == BENCH_SIZE_ZERO ? 1 : s * 2;
  return next <= b->opt.max_size ? next : 0;
}

size_t bench_size_bytes(size_t s) { return s == BENCH_SIZE_ZERO ? 0 : s; }

int bench_iters(const struct bench *b, size_t bytes) {
  if (b->opt.iterations > 0) return b->opt.iterations;
  return bytes > b->spec->large_size ? b->spec->iters_large : b->spec->iters_small;
}

int bench_warmup(const struct bench *b, size_t bytes) {
  if (b->opt.warmup >= 0) return b->opt.warmup;
  return bytes > b->spec->large_size ? b->spec->warmup_large : b->spec->warmup_small;
}

void bench_buf_alloc(struct bench *b, struct bench_buf *buf, size_t bytes, enum bench_mem mem) {
  char why[256];
  buf->bytes = bytes;
  buf->mem = mem;
  buf->ptr = buf->host = NULL;
  if (posix_memalign(&buf->host, 4096, bytes ? bytes : 1) != 0)
    bench_fail(b, "cannot allocate %zu bytes of host memory", bytes);
  memset(buf->host, 0, bytes);
  buf->ptr = buf->host;
  if (mem == BENCH_MEM_DEVICE) {
    if (bench_cuda_malloc(&buf->ptr, bytes, why, sizeof why) != 0) bench_fail(b, "%s", why);
    bench_buf_upload(buf, 0, bytes);
  }
}

void bench_buf_free(struct bench_buf *buf) {
  if (buf->mem == BENCH_MEM_DEVICE) bench_cuda_free(buf->ptr);
  free(buf->host);
  buf->ptr = buf->host = NULL;
}

void bench_buf_upload(struct bench_buf *buf, size_t offset, size_t bytes) {
  char why[256];
  if (buf->mem != BENCH_MEM_DEVICE) return;
  if (bench_cuda_to_device((char *)buf->ptr + offset, (char *)buf->host + offset, bytes, why,
                           sizeof why) != 0) {
    fprintf(stderr, "bench: %s\n", why);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

void bench_buf_download(struct bench_buf *buf, size_t offset, size_t bytes) {
  char why[256];
  if (buf->mem != BENCH_MEM_DEVICE) return;
  if (bench_cuda_to_host((char *)buf->host + offset, (char *)buf->ptr + offset, bytes, why,
                         sizeof why) != 0) {
    fprintf(stderr, "bench: %s\n", why);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

void bench_buf_fill(struct bench_buf *buf, size_t offset, size_t bytes, unsigned seed) {
  bench_pattern_fill((char *)buf->host + offset, bytes, seed);
  bench_buf_upload(buf, offset, bytes);
}

void bench_buf_poison(struct bench_buf *buf, size_t bytes) {
  bench_pattern_poison(buf->host, bytes);
  bench_buf_upload(buf, 0, bytes);
}

long long bench_buf_check(const struct bench *b, struct bench_buf *buf, size_t offset, size_t bytes,
                          unsigned seed) {
  char *p = (char *)buf->host + offset;
  bench_buf_download(buf, offset, bytes);
  if (b->opt.corrupt) bench_pattern_corrupt(p, bytes);
  return bench_pattern_check(p, bytes, seed);
}
