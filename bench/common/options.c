/* Option parsing with OSU's option names. One table drives both the parser and --help, so
 * every option a program accepts is documented by construction. */
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

struct opt_def {
  char letter;      /* 0: long option only */
  const char *name; /* long name */
  unsigned flag;    /* BENCH_OPT_* that enables it; 0: always */
  const char *arg;  /* argument name, NULL for a switch */
  const char *help;
};

static const struct opt_def kOpts[] = {
    {'h', "help", 0, NULL, "print this help and exit"},
    {'v', "version", 0, NULL, "print the suite's version and exit"},
    {'m', "message-size", BENCH_OPT_SIZES, "[MIN:]MAX",
     "message sizes from MIN to MAX bytes, powers of two (K and M suffixes accepted)"},
    {'i', "iterations", BENCH_OPT_ITERS, "N", "timed iterations per size"},
    {'x', "warmup", BENCH_OPT_ITERS, "N", "untimed warm-up iterations per size"},
    {'f', "full", BENCH_OPT_FULL, NULL,
     "full statistics: average, minimum and maximum over ranks, and iterations"},
    {'c', "validation", BENCH_OPT_VALIDATE, NULL,
     "check the data received; wrong bytes are counted, reported per size (Pass/Fail) and "
     "make the program exit with status 1"},
    {'W', "window-size", BENCH_OPT_WINDOW, "N", "messages in flight per iteration (default 64)"},
    {'p', "pairs", BENCH_OPT_PAIRS, "N", "number of sender/receiver pairs (default: ranks / 2)"},
    {'t', "num_threads", BENCH_OPT_THREADS, "SEND[:RECV]",
     "sender and receiver threads (default 1:2); needs MPI_THREAD_MULTIPLE"},
    {'t', "num_test_calls", BENCH_OPT_TEST_CALLS, "N",
     "MPI_Test calls spread over the compute phase (default 0)"},
    {'P', "partitions", BENCH_OPT_PARTITIONS, "N",
     "partitions per message (default 16); sizes below N bytes are skipped"},
    {'w', "win-option", BENCH_OPT_RMA, "WIN",
     "how the window is made: create (MPI_Win_create), allocate (MPI_Win_allocate, the "
     "default) or dynamic (MPI_Win_create_dynamic and MPI_Win_attach)"},
    {'s', "sync-option", BENCH_OPT_RMA, "SYNC",
     "how operations complete: lock (MPI_Win_lock/unlock each time), pscw (post/start/"
     "complete/wait), fence (MPI_Win_fence), flush (MPI_Win_flush inside one lock, the "
     "default), flush_local (MPI_Win_flush_local), lock_all (MPI_Win_lock_all/unlock_all "
     "each time)"},
    {'d', "accelerator", BENCH_OPT_ACCEL | BENCH_OPT_PLACEMENT, "cuda",
     "put buffers in CUDA device memory (the CUDA runtime is loaded only then)"},
    {'q', "queue", BENCH_OPT_QUEUE, "host|stream|device",
     "how operations are issued: host (default); stream (MPIX stream-enqueued) and device "
     "(device-triggered) are for MPIs that offer them"},
    {0, "format", 0, "text|json|csv",
     "output format: OSU text (default), one JSON document, or CSV"},
    {0, "corrupt-for-testing", 0, NULL,
     "flip one received byte before each check (tests that -c catches wrong data)"},
};
#define NOPTS (sizeof kOpts / sizeof kOpts[0])

static enum bench_parse fail(struct bench_options *opt, enum bench_parse kind, const char *fmt,
                             ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(opt->error, sizeof opt->error, fmt, ap);
  va_end(ap);
  return kind;
}

int bench_parse_size(const char *text, size_t *out) {
  char *end = NULL;
  errno = 0;
  if (!isdigit((unsigned char)text[0])) return -1;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno != 0) return -1;
  if (*end == 'K' || *end == 'k') {
    v <<= 10;
    end++;
  } else if (*end == 'M' || *end == 'm') {
    v <<= 20;
    end++;
  }
  if (*end != '\0') return -1;
  *out = (size_t)v;
  return 0;
}

static int parse_int(const char *text, int min, int *out) {
  char *end = NULL;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || v < min || v > 1000000000L) return -1;
  *out = (int)v;
  return 0;
}

static enum bench_parse parse_sizes(struct bench_options *opt, const char *text) {
  const char *colon = strchr(text, ':');
  size_t lo = opt->min_size, hi = opt->max_size;
  char buf[64];
  if (strlen(text) >= sizeof buf) return fail(opt, BENCH_PARSE_ERROR, "-m %s: too long", text);
  strcpy(buf, text);
  if (colon) {
    buf[colon - text] = '\0';
    if (buf[0] && bench_parse_size(buf, &lo) != 0)
      return fail(opt, BENCH_PARSE_ERROR, "-m %s: bad minimum size", text);
    if (colon[1] && bench_parse_size(colon + 1, &hi) != 0)
      return fail(opt, BENCH_PARSE_ERROR, "-m %s: bad maximum size", text);
  } else if (bench_parse_size(buf, &hi) != 0) {
    return fail(opt, BENCH_PARSE_ERROR, "-m %s: expected [MIN:]MAX in bytes", text);
  }
  if (lo > hi) return fail(opt, BENCH_PARSE_ERROR, "-m %s: minimum above maximum", text);
  opt->min_size = lo;
  opt->max_size = hi;
  return BENCH_PARSE_OK;
}

static enum bench_parse parse_threads(struct bench_options *opt, const char *text) {
  char buf[32];
  snprintf(buf, sizeof buf, "%s", text);
  char *colon = strchr(buf, ':');
  if (colon) *colon = '\0';
  if (parse_int(buf, 1, &opt->send_threads) != 0 ||
      (colon && parse_int(colon + 1, 1, &opt->recv_threads) != 0))
    return fail(opt, BENCH_PARSE_ERROR, "-t %s: expected SEND[:RECV] thread counts", text);
  return BENCH_PARSE_OK;
}

/* -q stream is the program's to implement (whether the MPI can is known after MPI_Init:
 * run.c); -q device is for MPIs with device-triggered operations, which no build offers yet. */
static enum bench_parse parse_queue(struct bench_options *opt, unsigned accepts, const char *text) {
  if (strcmp(text, "host") == 0) {
    opt->queue = BENCH_QUEUE_HOST;
    return BENCH_PARSE_OK;
  }
  if (strcmp(text, "stream") == 0) {
    opt->queue = BENCH_QUEUE_STREAM;
    if (accepts & BENCH_OPT_STREAM) return BENCH_PARSE_OK;
    return fail(opt, BENCH_PARSE_UNSUPPORTED,
                "-q stream: not supported by this program (osu_latency, osu_bw and "
                "osu_allreduce enqueue their operations on a stream)");
  }
  if (strcmp(text, "device") == 0) {
    opt->queue = BENCH_QUEUE_DEVICE;
    return fail(opt, BENCH_PARSE_UNSUPPORTED,
                "-q device: not supported by this MPI (device-triggered operations are not "
                "available in this build of the suite)");
  }
  return fail(opt, BENCH_PARSE_ERROR, "-q %s: expected host, stream or device", text);
}

/* Index of `text` in the NULL-terminated `names`, or -1. */
static int name_index(const char *const *names, const char *text) {
  for (int i = 0; names[i]; i++)
    if (strcmp(names[i], text) == 0) return i;
  return -1;
}

static const char *const kWinNames[] = {"create", "allocate", "dynamic", NULL};
static const char *const kSyncNames[] = {"lock",        "pscw",     "fence", "flush",
                                         "flush_local", "lock_all", NULL};

static enum bench_parse parse_rma(struct bench_options *opt, char letter, const char *text) {
  int i = name_index(letter == 'w' ? kWinNames : kSyncNames, text);
  if (i < 0) {
    return fail(opt, BENCH_PARSE_ERROR, "-%c %s: expected %s", letter, text,
                letter == 'w' ? "create, allocate or dynamic"
                              : "lock, pscw, fence, flush, flush_local or lock_all");
  }
  if (letter == 'w')
    opt->win = (enum bench_win)i;
  else
    opt->sync = (enum bench_sync)i;
  return BENCH_PARSE_OK;
}

static enum bench_parse parse_format(struct bench_options *opt, const char *text) {
  if (strcmp(text, "text") == 0)
    opt->format = BENCH_FORMAT_TEXT;
  else if (strcmp(text, "json") == 0)
    opt->format = BENCH_FORMAT_JSON;
  else if (strcmp(text, "csv") == 0)
    opt->format = BENCH_FORMAT_CSV;
  else
    return fail(opt, BENCH_PARSE_ERROR, "--format %s: expected text, json or csv", text);
  return BENCH_PARSE_OK;
}

static enum bench_parse parse_int_opt(struct bench_options *opt, char letter, const char *text,
                                      int min, int *out) {
  if (parse_int(text, min, out) != 0)
    return fail(opt, BENCH_PARSE_ERROR, "-%c %s: expected an integer >= %d", letter, text, min);
  return BENCH_PARSE_OK;
}

/* Applies one option with its argument (NULL for switches). */
static enum bench_parse apply(struct bench_options *opt, unsigned accepts, const struct opt_def *d,
                              const char *arg) {
  switch (d->letter) {
    case 'h':
      return BENCH_PARSE_HELP;
    case 'v':
      return BENCH_PARSE_VERSION;
    case 'm':
      return parse_sizes(opt, arg);
    case 'i':
      return parse_int_opt(opt, 'i', arg, 1, &opt->iterations);
    case 'x':
      return parse_int_opt(opt, 'x', arg, 0, &opt->warmup);
    case 'f':
      opt->full = 1;
      return BENCH_PARSE_OK;
    case 'c':
      opt->validate = 1;
      return BENCH_PARSE_OK;
    case 'W':
      return parse_int_opt(opt, 'W', arg, 1, &opt->window);
    case 'p':
      return parse_int_opt(opt, 'p', arg, 1, &opt->pairs);
    case 't':
      if (d->flag == BENCH_OPT_THREADS) return parse_threads(opt, arg);
      return parse_int_opt(opt, 't', arg, 0, &opt->test_calls);
    case 'P':
      return parse_int_opt(opt, 'P', arg, 1, &opt->partitions);
    case 'd':
      if (strcmp(arg, "cuda") != 0)
        return fail(opt, BENCH_PARSE_ERROR, "-d %s: the only accelerator is cuda", arg);
      opt->accel = 1;
      opt->mem[0] = opt->mem[1] = BENCH_MEM_DEVICE;
      return BENCH_PARSE_OK;
    case 'q':
      return parse_queue(opt, accepts, arg);
    case 'w':
    case 's':
      return parse_rma(opt, d->letter, arg);
    default:
      break;
  }
  if (strcmp(d->name, "format") == 0) return parse_format(opt, arg);
  opt->corrupt = 1; /* corrupt-for-testing */
  return BENCH_PARSE_OK;
}

static const struct opt_def *find_opt(unsigned accepts, char letter, const char *name,
                                      size_t name_len) {
  for (size_t i = 0; i < NOPTS; i++) {
    const struct opt_def *d = &kOpts[i];
    if (d->flag != 0 && (d->flag & accepts) == 0) continue;
    if (letter && d->letter == letter) return d;
    if (name && strlen(d->name) == name_len && strncmp(d->name, name, name_len) == 0) return d;
  }
  return NULL;
}

static void set_defaults(struct bench_options *opt, const struct bench_spec *spec) {
  memset(opt, 0, sizeof *opt);
  opt->min_size = spec->min_size;
  opt->max_size = spec->max_size;
  opt->iterations = opt->warmup = -1;
  opt->window = 64;
  opt->pairs = -1;
  opt->send_threads = 1;
  opt->recv_threads = 2;
  opt->partitions = 16;
  opt->win = BENCH_WIN_ALLOCATE;
  opt->sync = BENCH_SYNC_FLUSH;
}

/* "D" or "H" placement arguments after -d cuda. */
static enum bench_parse parse_placement(struct bench_options *opt, const struct bench_spec *spec,
                                        int nargs, char **args) {
  if (nargs == 0) return BENCH_PARSE_OK;
  if (!(spec->accepts & BENCH_OPT_PLACEMENT) || !opt->accel || nargs != 2)
    return fail(opt, BENCH_PARSE_ERROR, "unexpected argument '%s'%s", args[0],
                (spec->accepts & BENCH_OPT_PLACEMENT) ? " (placement is: -d cuda D|H D|H)" : "");
  for (int i = 0; i < 2; i++) {
    if (strcmp(args[i], "D") != 0 && strcmp(args[i], "H") != 0)
      return fail(opt, BENCH_PARSE_ERROR, "placement '%s': expected D (device) or H (host)",
                  args[i]);
    opt->mem[i] = args[i][0] == 'D' ? BENCH_MEM_DEVICE : BENCH_MEM_HOST;
  }
  return BENCH_PARSE_OK;
}

/* Finds the definition of argv[*i] and its argument; advances *i past what it used. */
static enum bench_parse next_option(struct bench_options *opt, unsigned accepts, int argc,
                                    char **argv, int *i) {
  const char *a = argv[*i];
  const struct opt_def *d;
  const char *val = NULL;
  if (a[1] == '-') {
    const char *eq = strchr(a + 2, '=');
    size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
    d = find_opt(accepts, 0, a + 2, len);
    if (eq) val = eq + 1;
  } else {
    d = find_opt(accepts, a[1], NULL, 0);
    if (d && a[2] != '\0') val = a + 2;
  }
  if (!d) return fail(opt, BENCH_PARSE_ERROR, "unknown option %s (see --help)", a);
  if (d->arg && !val) {
    if (*i + 1 >= argc) return fail(opt, BENCH_PARSE_ERROR, "option %s needs %s", a, d->arg);
    val = argv[++*i];
  } else if (!d->arg && val) {
    return fail(opt, BENCH_PARSE_ERROR, "option %s takes no argument", a);
  }
  return apply(opt, accepts, d, val);
}

enum bench_parse bench_parse_options(struct bench_options *opt, const struct bench_spec *spec,
                                     int argc, char **argv) {
  unsigned accepts = spec->accepts;
  char *positional[4];
  int npos = 0;
  set_defaults(opt, spec);
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] != '-' || argv[i][1] == '\0') {
      if (npos == 4) return fail(opt, BENCH_PARSE_ERROR, "too many arguments");
      positional[npos++] = argv[i];
      continue;
    }
    enum bench_parse r = next_option(opt, accepts, argc, argv, &i);
    if (r != BENCH_PARSE_OK) return r;
  }
  return parse_placement(opt, spec, npos, positional);
}

void bench_print_help(FILE *out, const struct bench_spec *spec) {
  fprintf(out, "Usage: %s [options]%s\n%s (gpurun bench suite %s, OSU %s output format)\n\n",
          spec->name, (spec->accepts & BENCH_OPT_PLACEMENT) ? " [-d cuda [D|H D|H]]" : "",
          spec->title, BENCH_SUITE_VERSION, BENCH_OSU_FORMAT);
  for (size_t i = 0; i < NOPTS; i++) {
    const struct opt_def *d = &kOpts[i];
    if (d->flag != 0 && (d->flag & spec->accepts) == 0) continue;
    char head[64];
    if (d->letter)
      snprintf(head, sizeof head, "-%c, --%s%s%s", d->letter, d->name, d->arg ? " " : "",
               d->arg ? d->arg : "");
    else
      snprintf(head, sizeof head, "    --%s%s%s", d->name, d->arg ? " " : "", d->arg ? d->arg : "");
    fprintf(out, "  %-36s %s\n", head, d->help);
  }
  if (spec->accepts & BENCH_OPT_SIZES)
    fprintf(out, "\nDefault sizes: %zu:%zu bytes.\n", spec->min_size, spec->max_size);
  if (spec->accepts & BENCH_OPT_PLACEMENT)
    fprintf(out,
            "Placement after -d cuda: rank 0's (sender's) buffer, then rank 1's "
            "(receiver's): D D, H D, D H (default D D).\n");
  fprintf(out,
          "Exit status: 0 ok, 1 validation failed, 2 usage or unsupported option, "
          "3 no CUDA device, 4 wrong number of ranks, 77 MPI lacks a capability.\n");
}
