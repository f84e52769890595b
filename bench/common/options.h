/* Command-line options of the suite, with OSU's names. Parsing needs no MPI, so it is
 * unit-tested on its own; the caller reports errors on rank 0 after MPI_Init. */
#ifndef BENCH_COMMON_OPTIONS_H
#define BENCH_COMMON_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

struct bench_spec;

/* Options a program accepts beyond -h -v --format and --corrupt-for-testing. */
enum {
  BENCH_OPT_SIZES = 1u << 0,       /* -m */
  BENCH_OPT_ITERS = 1u << 1,       /* -i -x */
  BENCH_OPT_FULL = 1u << 2,        /* -f */
  BENCH_OPT_VALIDATE = 1u << 3,    /* -c */
  BENCH_OPT_WINDOW = 1u << 4,      /* -W */
  BENCH_OPT_PAIRS = 1u << 5,       /* -p */
  BENCH_OPT_THREADS = 1u << 6,     /* -t SEND[:RECV] threads */
  BENCH_OPT_TEST_CALLS = 1u << 7,  /* -t N calls of MPI_Test during compute */
  BENCH_OPT_ACCEL = 1u << 8,       /* -d cuda (all buffers) */
  BENCH_OPT_PLACEMENT = 1u << 9,   /* -d cuda X Y: buffer placement per side */
  BENCH_OPT_QUEUE = 1u << 10,      /* -q host|stream|device */
  BENCH_OPT_STREAM = 1u << 11,     /* the program implements -q stream */
  BENCH_OPT_PARTITIONS = 1u << 12, /* -P partitions per message */
  BENCH_OPT_RMA = 1u << 13,        /* -w window creation, -s synchronization (one-sided) */
};
#define BENCH_OPTS_COMMON (BENCH_OPT_SIZES | BENCH_OPT_ITERS | BENCH_OPT_VALIDATE | BENCH_OPT_QUEUE)

enum bench_mem { BENCH_MEM_HOST, BENCH_MEM_DEVICE };
enum bench_format { BENCH_FORMAT_TEXT, BENCH_FORMAT_JSON, BENCH_FORMAT_CSV };
enum bench_queue { BENCH_QUEUE_HOST, BENCH_QUEUE_STREAM, BENCH_QUEUE_DEVICE };
/* -w: how the one-sided benchmarks make their window (OSU's names). */
enum bench_win { BENCH_WIN_CREATE, BENCH_WIN_ALLOCATE, BENCH_WIN_DYNAMIC };
/* -s: how they synchronize (OSU's names: lock, pscw, fence, flush, flush_local, lock_all). */
enum bench_sync {
  BENCH_SYNC_LOCK,
  BENCH_SYNC_PSCW,
  BENCH_SYNC_FENCE,
  BENCH_SYNC_FLUSH,
  BENCH_SYNC_FLUSH_LOCAL,
  BENCH_SYNC_LOCK_ALL,
};

enum bench_parse {
  BENCH_PARSE_OK,
  BENCH_PARSE_HELP,
  BENCH_PARSE_VERSION,
  BENCH_PARSE_ERROR,       /* bad usage: opt->error says why */
  BENCH_PARSE_UNSUPPORTED, /* valid option this MPI cannot do yet: opt->error says which */
};

struct bench_options {
  size_t min_size, max_size;
  int iterations, warmup; /* -1: OSU's defaults, which depend on the size */
  int full, validate;
  int window;
  int pairs; /* -1: half the ranks */
  int send_threads, recv_threads;
  int test_calls;
  int partitions; /* -P */
  enum bench_win win;    /* -w (default allocate) */
  enum bench_sync sync;  /* -s (default flush) */
  int accel;             /* 1 with -d cuda */
  enum bench_mem mem[2]; /* placement of rank 0's (sender's) and rank 1's buffers */
  enum bench_queue queue;
  enum bench_format format;
  int corrupt; /* --corrupt-for-testing: flip a received byte before checking it */
  char error[256];
};

/* Fills opt from argv with spec's defaults; returns a bench_parse value. argv is not changed. */
enum bench_parse bench_parse_options(struct bench_options *opt, const struct bench_spec *spec,
                                     int argc, char **argv);
/* Prints the --help text of spec's program. */
void bench_print_help(FILE *out, const struct bench_spec *spec);
/* Parses "64", "64K", "4M": returns 0 on success. */
int bench_parse_size(const char *text, size_t *out);

#endif
