/* Unit tests of the suite's validation code and option parsing (no MPI needed).
 * The corruption switch (bench_pattern_corrupt, used by --corrupt-for-testing) must make
 * every check report the damage: that is what proves -c catches a wrong byte. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static int passed, failed;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (cond) {                                                                \
      passed++;                                                                \
    } else {                                                                   \
      failed++;                                                                \
      fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

static const size_t kSizes[] = {0, 1, 2, 7, 4096, 65537};
#define NSIZES (sizeof kSizes / sizeof kSizes[0])

static void test_pattern_round_trip(void) {
  unsigned char *buf = malloc(65537);
  for (size_t i = 0; i < NSIZES; i++) {
    unsigned seed = bench_seed(0, 1, 1);
    bench_pattern_fill(buf, kSizes[i], seed);
    CHECK(bench_pattern_check(buf, kSizes[i], seed) == 0);
    /* Data of another sender, receiver or round is wrong data. */
    CHECK(kSizes[i] < 4 || bench_pattern_check(buf, kSizes[i], bench_seed(1, 0, 1)) > 0);
    CHECK(kSizes[i] < 4 || bench_pattern_check(buf, kSizes[i], bench_seed(0, 1, 2)) > 0);
  }
  free(buf);
}

static void test_poison_is_never_data(void) {
  unsigned char *buf = malloc(65537);
  for (size_t i = 0; i < NSIZES; i++) {
    bench_pattern_poison(buf, kSizes[i]);
    CHECK(bench_pattern_check(buf, kSizes[i], bench_seed(2, 3, 4)) == (long long)kSizes[i]);
  }
  long zeros = 0;
  for (unsigned s = 0; s < 64; s++)
    for (size_t off = 0; off < 4096; off++) zeros += bench_pattern_byte(s * 7919u, off) == 0;
  CHECK(zeros == 0);
  free(buf);
}

static void test_corruption_switch_is_caught(void) {
  unsigned char *buf = malloc(65537);
  for (size_t i = 0; i < NSIZES; i++) {
    unsigned seed = bench_seed(3, 1, 2);
    bench_pattern_fill(buf, kSizes[i], seed);
    bench_pattern_corrupt(buf, kSizes[i]);
    CHECK(bench_pattern_check(buf, kSizes[i], seed) == (kSizes[i] ? 1 : 0));
  }
  free(buf);
}

static void test_reduction_values(void) {
  enum { kCount = 1000, kRanks = 5 };
  float *sum = calloc(kCount, sizeof(float)), *part = calloc(kCount, sizeof(float));
  for (int r = 0; r < kRanks; r++) {
    bench_reduce_fill(part, kCount, 0, r, 2);
    for (int k = 0; k < kCount; k++) sum[k] += part[k];
  }
  CHECK(bench_reduce_check(sum, kCount, 0, kRanks, 2) == 0);
  CHECK(bench_reduce_check(sum + 100, 50, 100, kRanks, 2) == 0);      /* a reduce_scatter share */
  CHECK(bench_reduce_check(sum, kCount, 0, kRanks, 3) > 0);           /* stale round */
  CHECK(bench_reduce_check(sum, kCount, 0, kRanks - 1, 2) == kCount); /* a rank missing */
  bench_pattern_corrupt(sum, kCount * sizeof(float));
  CHECK(bench_reduce_check(sum, kCount, 0, kRanks, 2) == 1);
  bench_pattern_poison(sum, kCount * sizeof(float));
  CHECK(bench_reduce_check(sum, kCount, 0, kRanks, 2) == kCount);
  free(sum);
  free(part);
}

static const struct bench_spec kPt2pt = {
    .name = "t_pt2pt",
    .title = "T",
    .accepts = BENCH_OPTS_COMMON | BENCH_OPT_WINDOW | BENCH_OPT_ACCEL | BENCH_OPT_PLACEMENT,
    .min_size = 0,
    .max_size = 4 << 20,
};
static const struct bench_spec kStream = {
    .name = "t_stream",
    .title = "T",
    .accepts = BENCH_OPTS_COMMON | BENCH_OPT_ACCEL | BENCH_OPT_PLACEMENT | BENCH_OPT_STREAM,
    .min_size = 0,
    .max_size = 4 << 20,
};
static const struct bench_spec kPartitioned = {
    .name = "t_part",
    .title = "T",
    .accepts = BENCH_OPTS_COMMON | BENCH_OPT_PARTITIONS,
    .min_size = 16,
    .max_size = 1 << 20,
};
static const struct bench_spec kNbc = {
    .name = "t_nbc",
    .title = "T",
    .accepts = BENCH_OPTS_COMMON | BENCH_OPT_FULL | BENCH_OPT_ACCEL | BENCH_OPT_TEST_CALLS,
    .min_size = 4,
    .max_size = 1 << 20,
};

static const struct bench_spec kRma = {
    .name = "t_rma",
    .title = "T",
    .accepts = BENCH_OPTS_COMMON | BENCH_OPT_RMA,
    .min_size = 1,
    .max_size = 1 << 20,
};

static enum bench_parse parse(struct bench_options *o, const struct bench_spec *s,
                              const char *line) {
  char copy[256], *argv[32];
  int argc = 0;
  snprintf(copy, sizeof copy, "prog %s", line);
  for (char *t = strtok(copy, " "); t && argc < 31; t = strtok(NULL, " ")) argv[argc++] = t;
  argv[argc] = NULL;
  return bench_parse_options(o, s, argc, argv);
}

static void test_options(void) {
  struct bench_options o;
  CHECK(parse(&o, &kPt2pt, "") == BENCH_PARSE_OK && o.min_size == 0 && o.max_size == 4 << 20);
  CHECK(o.iterations == -1 && o.window == 64 && !o.validate && o.format == BENCH_FORMAT_TEXT);
  CHECK(parse(&o, &kPt2pt, "-m 2:8K -i 5 -x 0 -c -W 16") == BENCH_PARSE_OK);
  CHECK(o.min_size == 2 && o.max_size == 8192 && o.iterations == 5 && o.warmup == 0);
  CHECK(o.validate && o.window == 16);
  CHECK(parse(&o, &kPt2pt, "-m 128") == BENCH_PARSE_OK && o.min_size == 0 && o.max_size == 128);
  CHECK(parse(&o, &kPt2pt, "--message-size=4:64 --format json") == BENCH_PARSE_OK);
  CHECK(o.min_size == 4 && o.max_size == 64 && o.format == BENCH_FORMAT_JSON);
  CHECK(parse(&o, &kPt2pt, "-d cuda H D") == BENCH_PARSE_OK && o.accel);
  CHECK(o.mem[0] == BENCH_MEM_HOST && o.mem[1] == BENCH_MEM_DEVICE);
  CHECK(parse(&o, &kPt2pt, "-d cuda") == BENCH_PARSE_OK && o.mem[0] == BENCH_MEM_DEVICE);
  CHECK(parse(&o, &kPt2pt, "-d cuda X D") == BENCH_PARSE_ERROR);
  CHECK(parse(&o, &kPt2pt, "-d rocm") == BENCH_PARSE_ERROR);
  CHECK(parse(&o, &kPt2pt, "-m 9:3") == BENCH_PARSE_ERROR);
  CHECK(parse(&o, &kPt2pt, "-f") == BENCH_PARSE_ERROR); /* not accepted by this program */
  CHECK(parse(&o, &kPt2pt, "-i") == BENCH_PARSE_ERROR);
  CHECK(parse(&o, &kPt2pt, "--bogus") == BENCH_PARSE_ERROR && strstr(o.error, "--bogus"));
  CHECK(parse(&o, &kPt2pt, "-q host") == BENCH_PARSE_OK);
  CHECK(parse(&o, &kPt2pt, "-q stream") == BENCH_PARSE_UNSUPPORTED);
  CHECK(strstr(o.error, "not supported by this program") != NULL);
  CHECK(parse(&o, &kStream, "-q stream -d cuda") == BENCH_PARSE_OK);
  CHECK(o.queue == BENCH_QUEUE_STREAM);
  CHECK(parse(&o, &kPt2pt, "-q device") == BENCH_PARSE_UNSUPPORTED);
  CHECK(strstr(o.error, "not supported by this MPI") != NULL);
  CHECK(parse(&o, &kPt2pt, "--help") == BENCH_PARSE_HELP);
  CHECK(parse(&o, &kNbc, "-t 3 -f -d cuda") == BENCH_PARSE_OK && o.test_calls == 3 && o.full);
  CHECK(parse(&o, &kNbc, "-d cuda D D") == BENCH_PARSE_ERROR); /* placement is pt2pt only */
  CHECK(parse(&o, &kNbc, "--corrupt-for-testing") == BENCH_PARSE_OK && o.corrupt);
  CHECK(parse(&o, &kPartitioned, "") == BENCH_PARSE_OK && o.partitions == 16);
  CHECK(parse(&o, &kPartitioned, "-P 64") == BENCH_PARSE_OK && o.partitions == 64);
  CHECK(parse(&o, &kPartitioned, "--partitions=3") == BENCH_PARSE_OK && o.partitions == 3);
  CHECK(parse(&o, &kPartitioned, "-P 0") == BENCH_PARSE_ERROR);
  CHECK(parse(&o, &kRma, "") == BENCH_PARSE_OK && o.win == BENCH_WIN_ALLOCATE &&
        o.sync == BENCH_SYNC_FLUSH);
  CHECK(parse(&o, &kRma, "-w dynamic -s flush_local") == BENCH_PARSE_OK &&
        o.win == BENCH_WIN_DYNAMIC && o.sync == BENCH_SYNC_FLUSH_LOCAL);
  CHECK(parse(&o, &kRma, "--win-option=create --sync-option=pscw") == BENCH_PARSE_OK &&
        o.win == BENCH_WIN_CREATE && o.sync == BENCH_SYNC_PSCW);
  CHECK(parse(&o, &kRma, "-s lock_all") == BENCH_PARSE_OK && o.sync == BENCH_SYNC_LOCK_ALL);
  CHECK(parse(&o, &kRma, "-s unlock") == BENCH_PARSE_ERROR && strstr(o.error, "-s unlock"));
  CHECK(parse(&o, &kRma, "-w shared") == BENCH_PARSE_ERROR && strstr(o.error, "-w shared"));
  CHECK(parse(&o, &kPt2pt, "-s fence") == BENCH_PARSE_ERROR); /* one-sided programs only */
  CHECK(parse(&o, &kPt2pt, "-P 4") == BENCH_PARSE_ERROR); /* not accepted by this program */
}

int main(void) {
  test_pattern_round_trip();
  test_poison_is_never_data();
  test_corruption_switch_is_caught();
  test_reduction_values();
  test_options();
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
