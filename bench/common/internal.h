/* Functions shared between the files of the common library; not for programs. */
#ifndef BENCH_COMMON_INTERNAL_H
#define BENCH_COMMON_INTERNAL_H

#include "bench.h"

/* ranks.c */
long long bench_sum_errors(struct bench *b, long long local); /* collective, all ranks */
int bench_local_rank(struct bench *b);                        /* collective */
int bench_minimal_mpi(void);

/* output.c */
void bench_output_json(struct bench *b);
/* Writes s as a JSON string (quoted, escaped; stops at the first newline). */
void bench_json_string(FILE *out, const char *s);

#endif
