/* The common library of gpurun's OSU-style benchmark suite: option parsing, buffers (host or
 * CUDA device), timing, validation and output (OSU text, JSON, CSV). Programs include this
 * header only; it needs mpi.h and nothing else.
 *
 * A program's life: bench_start() (parses options, MPI_Init, checks the rank count, prints the
 * header on rank 0), then one bench_row() per message size, then bench_finish() (prints the
 * machine-readable output, MPI_Finalize) whose value is main's exit status. Every call is
 * collective over MPI_COMM_WORLD unless it says otherwise. Not thread-safe. */
#ifndef BENCH_COMMON_BENCH_H
#define BENCH_COMMON_BENCH_H

#include <mpi.h>
#include <stddef.h>

#include "options.h"
#include "pattern.h"

#define BENCH_OSU_FORMAT "7.3" /* the OSU release whose output format the suite follows */
#define BENCH_SUITE_VERSION "0.1"

/* Exit statuses shared with the test scripts and bench/compare. */
enum {
  BENCH_EXIT_OK = 0,
  BENCH_EXIT_VALIDATION = 1, /* -c found wrong data */
  BENCH_EXIT_USAGE = 2,      /* bad option, or option not supported by this MPI */
  BENCH_EXIT_NO_DEVICE = 3,  /* -d cuda without a usable CUDA runtime or device */
  BENCH_EXIT_RANKS = 4,      /* wrong number of ranks for this benchmark */
  BENCH_EXIT_SKIP = 77,      /* the MPI lacks a capability (threads): nothing measured */
};

enum bench_ranks {
  BENCH_RANKS_ANY,   /* one or more */
  BENCH_RANKS_TWO,   /* exactly two */
  BENCH_RANKS_EVEN,  /* two or more, even */
  BENCH_RANKS_PAIRS, /* two or more (pairs chosen with -p) */
};

/* One column of the result table. width/precision are the OSU text layout. */
struct bench_column {
  const char *title; /* "Latency (us)" */
  const char *key;   /* "latency_us": JSON key and CSV header */
  int width;
  int precision; /* digits after the point; 0 prints an integer */
};

/* What a program is: fixed at compile time, one per program. */
struct bench_spec {
  const char *name;  /* "osu_latency" */
  const char *title; /* "OSU MPI Latency Test" */
  unsigned accepts;  /* BENCH_OPT_* flags beyond the common ones */
  enum bench_ranks ranks;
  size_t min_size, max_size; /* defaults for -m */
  int iters_small, iters_large, warmup_small, warmup_large;
  size_t large_size; /* sizes above it use the *_large counts */
  int sizeless;      /* no size column (barrier, init, hello) */
  int custom_text;   /* the program prints its own text lines (init, hello) */
};

/* A buffer the benchmark hands to MPI, on the host or on a CUDA device. */
struct bench_buf {
  void *ptr;  /* what MPI sees */
  void *host; /* host mirror used to fill and check; equals ptr for host memory */
  size_t bytes;
  enum bench_mem mem;
};

struct bench_stat {
  double avg, min, max; /* over the ranks that took part */
};

#define BENCH_MAX_COLUMNS 12
#define BENCH_MAX_NOTES 6
#define BENCH_MAX_ROWS 64

struct bench_row_data {
  long long size; /* -1 when sizeless */
  double values[BENCH_MAX_COLUMNS];
  long long errors; /* -1 when not validated */
};

struct bench {
  const struct bench_spec *spec;
  struct bench_options opt;
  MPI_Comm comm;
  int rank, size;
  int local_rank;
  int device; /* CUDA device used by this rank, -1 when none */
  /* -q stream: the CUDA stream (a cudaStream_t) and the communicator bound to it
   * (MPIX_Stream_comm_create), made by the first buffers' allocation (stream.c). */
  void *cuda_stream;
  MPI_Comm queue_comm;
  struct bench_column columns[BENCH_MAX_COLUMNS];
  int ncolumns;
  char notes[BENCH_MAX_NOTES][160];
  int nnotes;
  struct bench_row_data rows[BENCH_MAX_ROWS];
  int nrows;
  long long errors_total; /* summed over ranks and sizes */
  int minimal_mpi;        /* built without MPI_Reduce: statistics are this rank's only */
};

/* Parses argv, calls MPI_Init (MPI_Init_thread when thread_level >= 0) and sets b up. Returns
 * -1 when the program should go on, else the exit status to return from main (help printed,
 * bad option, wrong rank count: the message is printed on rank 0 and MPI is finalized). */
int bench_start(struct bench *b, const struct bench_spec *spec, int *argc, char ***argv);
int bench_start_thread(struct bench *b, const struct bench_spec *spec, int *argc, char ***argv,
                       int thread_level);
/* Second half of bench_start for programs that call MPI_Init themselves (osu_init). */
int bench_start_after_init(struct bench *b, const struct bench_spec *spec, int parse_status);

/* Columns of the table; call before bench_print_header. */
void bench_add_column(struct bench *b, const char *title, const char *key, int width, int prec);
/* The -f columns (Min, Max, Iterations) of a latency table. */
void bench_add_full_columns(struct bench *b, const char *what);
/* An extra "# ..." header line (window, pairs, threads). */
void bench_add_note(struct bench *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints the OSU header (text, rank 0) or the CSV header. */
void bench_print_header(struct bench *b);

/* Message sizes: for (s = bench_size_first(b); s; s = bench_size_next(b, s)) — 0 is
 * represented as BENCH_SIZE_ZERO so that the loop condition stays simple. */
#define BENCH_SIZE_ZERO ((size_t)-1)
size_t bench_size_first(const struct bench *b);
size_t bench_size_next(const struct bench *b, size_t s);
size_t bench_size_bytes(size_t s); /* BENCH_SIZE_ZERO -> 0 */
int bench_iters(const struct bench *b, size_t bytes);
int bench_warmup(const struct bench *b, size_t bytes);

/* One table row. values has b->ncolumns entries; errors is this rank's count of wrong bytes,
 * or -1 when -c is off (collective: summed over ranks). */
void bench_row(struct bench *b, long long size, const double *values, long long errors);

/* Prints JSON (if asked), finalizes MPI, returns main's exit status. */
int bench_finish(struct bench *b);

/* Statistics of a per-rank value over the ranks with took_part != 0 (collective). */
void bench_stats(struct bench *b, double local, int took_part, struct bench_stat *out);
/* Largest value over all ranks, known to every rank (collective). */
double bench_max_all(struct bench *b, double local);

/* Buffers (rank-local calls). bench_buf_alloc fails loudly (MPI_Abort) when memory cannot be
 * had. */
void bench_buf_alloc(struct bench *b, struct bench_buf *buf, size_t bytes, enum bench_mem mem);
void bench_buf_free(struct bench_buf *buf);
/* Copies [offset, offset+bytes) from the host mirror to ptr, or back (no-ops for host memory). */
void bench_buf_upload(struct bench_buf *buf, size_t offset, size_t bytes);
void bench_buf_download(struct bench_buf *buf, size_t offset, size_t bytes);
/* Fill with the byte pattern of seed / poison / check (download first). */
void bench_buf_fill(struct bench_buf *buf, size_t offset, size_t bytes, unsigned seed);
void bench_buf_poison(struct bench_buf *buf, size_t bytes);
long long bench_buf_check(const struct bench *b, struct bench_buf *buf, size_t offset, size_t bytes,
                          unsigned seed);

/* -q stream (stream.c; full MPI only): the stream and its communicator, made once; waiting
 * until the stream has run everything enqueued so far (a no-op for -q host). */
void bench_stream_open(struct bench *b);
void bench_stream_sync(struct bench *b);

/* Fails the whole job with a message (rank-local call, does not return). */
void bench_fail(const struct bench *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)))
__attribute__((noreturn));

#endif
