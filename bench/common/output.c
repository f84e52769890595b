/* Output: OSU's text layout (a "# Title vX.Y" line, "# ..." notes, a "# Size  Column..." header,
 * then one row per size, sizes left-aligned in 10 characters and values right-aligned in their
 * columns), one JSON document at the end, or CSV. Only rank 0 prints. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "internal.h"

enum { kSizeWidth = 10, kFieldWidth = 18 };

void bench_add_column(struct bench *b, const char *title, const char *key, int width, int prec) {
  if (b->ncolumns == BENCH_MAX_COLUMNS) bench_fail(b, "too many columns");
  struct bench_column *c = &b->columns[b->ncolumns++];
  c->title = title;
  c->key = key;
  c->width = width > 0 ? width : kFieldWidth;
  c->precision = prec;
}

void bench_add_full_columns(struct bench *b, const char *what) {
  static char titles[2][64];
  snprintf(titles[0], sizeof titles[0], "Min %s", what);
  snprintf(titles[1], sizeof titles[1], "Max %s", what);
  bench_add_column(b, titles[0], "min_us", 0, 2);
  bench_add_column(b, titles[1], "max_us", 0, 2);
  bench_add_column(b, "Iterations", "iterations", 12, 0);
}

void bench_add_note(struct bench *b, const char *fmt, ...) {
  if (b->nnotes == BENCH_MAX_NOTES) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(b->notes[b->nnotes++], sizeof b->notes[0], fmt, ap);
  va_end(ap);
}

static const char *mem_name(enum bench_mem m) { return m == BENCH_MEM_DEVICE ? "DEVICE" : "HOST"; }

static void print_text_header(const struct bench *b) {
  printf("# %s v%s\n", b->spec->title, BENCH_OSU_FORMAT);
  if (b->opt.accel && (b->spec->accepts & BENCH_OPT_PLACEMENT))
    printf("# Send Buffer on %s (%c) and Receive Buffer on %s (%c)\n", mem_name(b->opt.mem[0]),
           mem_name(b->opt.mem[0])[0], mem_name(b->opt.mem[1]), mem_name(b->opt.mem[1])[0]);
  for (int i = 0; i < b->nnotes; i++) printf("%s\n", b->notes[i]);
  if (b->spec->custom_text) return;
  if (!b->spec->sizeless) printf("%-*s", kSizeWidth, "# Size");
  for (int i = 0; i < b->ncolumns; i++) {
    /* A sizeless table (barrier) starts with its first column, marked as a comment. */
    if (b->spec->sizeless && i == 0) {
      char first[64];
      snprintf(first, sizeof first, "# %s", b->columns[i].title);
      printf("%-*s", b->ncolumns > 1 ? b->columns[i].width : 0, first);
    } else
      printf("%*s", b->columns[i].width, b->columns[i].title);
  }
  if (b->opt.validate) printf("%*s", kFieldWidth, "Validation");
  printf("\n");
}

void bench_print_header(struct bench *b) {
  if (b->rank != 0) return;
  if (b->opt.format == BENCH_FORMAT_TEXT) {
    print_text_header(b);
  } else if (b->opt.format == BENCH_FORMAT_CSV) {
    printf("benchmark,size");
    for (int i = 0; i < b->ncolumns; i++) printf(",%s", b->columns[i].key);
    printf(",validation\n");
  }
  fflush(stdout);
}

static const char *validation_word(long long errors) {
  return errors < 0 ? "" : errors == 0 ? "Pass" : "Fail";
}

static void print_text_row(const struct bench *b, const struct bench_row_data *r) {
  if (!b->spec->sizeless) printf("%-*lld", kSizeWidth, r->size);
  for (int i = 0; i < b->ncolumns; i++)
    printf("%*.*f", b->columns[i].width, b->columns[i].precision, r->values[i]);
  if (b->opt.validate) printf("%*s", kFieldWidth, validation_word(r->errors));
  printf("\n");
}

/* JSON and CSV keep two more digits than the text; counts stay integers. */
static int machine_precision(const struct bench_column *c) {
  return c->precision ? c->precision + 2 : 0;
}

static void print_csv_row(const struct bench *b, const struct bench_row_data *r) {
  printf("%s,", b->spec->name);
  if (r->size >= 0) printf("%lld", r->size);
  for (int i = 0; i < b->ncolumns; i++)
    printf(",%.*f", machine_precision(&b->columns[i]), r->values[i]);
  printf(",%s\n", validation_word(r->errors));
}

void bench_row(struct bench *b, long long size, const double *values, long long errors) {
  struct bench_row_data r;
  r.size = b->spec->sizeless ? -1 : size;
  memcpy(r.values, values, sizeof(double) * (size_t)b->ncolumns);
  r.errors = b->opt.validate ? bench_sum_errors(b, errors < 0 ? 0 : errors) : -1;
  if (r.errors > 0) {
    b->errors_total += r.errors;
    if (b->rank == 0)
      fprintf(stderr, "%s: validation failed at size %lld: %lld wrong bytes or elements\n",
              b->spec->name, size, r.errors);
  }
  if (b->rank != 0) return;
  if (b->nrows < BENCH_MAX_ROWS) b->rows[b->nrows++] = r;
  if (b->opt.format == BENCH_FORMAT_TEXT && !b->spec->custom_text) print_text_row(b, &r);
  if (b->opt.format == BENCH_FORMAT_CSV) print_csv_row(b, &r);
  fflush(stdout);
}

void bench_json_string(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s && *s != '\n'; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(out, "\\%c", c);
    else if (c < 0x20)
      fprintf(out, "\\u%04x", c);
    else
      fputc(c, out);
  }
  fputc('"', out);
}

static void json_options(const struct bench *b) {
  const struct bench_options *o = &b->opt;
  printf(
      "  \"options\": {\"min_size\": %zu, \"max_size\": %zu, \"iterations\": %d, "
      "\"warmup\": %d, \"full\": %s, \"validate\": %s, \"window\": %d, \"pairs\": %d, "
      "\"accel\": \"%s\", \"placement\": \"%c %c\"},\n",
      o->min_size, o->max_size, o->iterations, o->warmup, o->full ? "true" : "false",
      o->validate ? "true" : "false", o->window, o->pairs, o->accel ? "cuda" : "none",
      mem_name(o->mem[0])[0], mem_name(o->mem[1])[0]);
}

static void json_rows(const struct bench *b) {
  printf("  \"rows\": [");
  for (int i = 0; i < b->nrows; i++) {
    const struct bench_row_data *r = &b->rows[i];
    printf("%s\n    {", i ? "," : "");
    if (r->size >= 0) printf("\"size\": %lld, ", r->size);
    for (int c = 0; c < b->ncolumns; c++)
      printf("\"%s\": %.*f, ", b->columns[c].key, machine_precision(&b->columns[c]), r->values[c]);
    if (r->errors >= 0)
      printf("\"validation\": \"%s\", \"errors\": %lld}", r->errors ? "fail" : "pass", r->errors);
    else
      printf("\"validation\": null}");
  }
  printf("\n  ],\n");
}

void bench_output_json(struct bench *b) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(version, &len);
  if (b->rank != 0) return;
  printf("{\n  \"benchmark\": \"%s\",\n  \"title\": ", b->spec->name);
  bench_json_string(stdout, b->spec->title);
  printf(",\n  \"format\": \"%s\",\n  \"suite\": \"gpurun bench %s\",\n  \"mpi\": ",
         BENCH_OSU_FORMAT, BENCH_SUITE_VERSION);
  bench_json_string(stdout, version);
  printf(",\n  \"ranks\": %d,\n  \"minimal_mpi\": %s,\n", b->size,
         b->minimal_mpi ? "true" : "false");
  json_options(b);
  printf("  \"notes\": [");
  for (int i = 0; i < b->nnotes; i++) {
    printf("%s", i ? ", " : "");
    bench_json_string(stdout, b->notes[i]);
  }
  printf("],\n  \"columns\": [");
  for (int i = 0; i < b->ncolumns; i++) {
    printf("%s{\"key\": \"%s\", \"title\": ", i ? ", " : "", b->columns[i].key);
    bench_json_string(stdout, b->columns[i].title);
    printf("}");
  }
  printf("],\n");
  json_rows(b);
  printf("  \"errors\": %lld\n}\n", b->errors_total);
  fflush(stdout);
}

int bench_finish(struct bench *b) {
  if (b->opt.format == BENCH_FORMAT_JSON) bench_output_json(b);
  fflush(stdout);
  /* Rank 0's rows are out before any rank can leave: a launcher ends the job when a rank exits
   * with an error (validation failed), and rank 0 may still be writing its last row. */
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return b->errors_total > 0 ? BENCH_EXIT_VALIDATION : BENCH_EXIT_OK;
}
