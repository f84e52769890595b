/* Data patterns for validation (-c). Pure functions, no MPI: unit-tested on their own.
 *
 * Byte data: every byte a sender sends is a function of a seed (who sends to whom, in which
 * validation round) and of its offset, and is never 0; receive buffers are poisoned with 0
 * before each checked operation, so a byte that was not delivered, delivered twice, delivered
 * to the wrong offset or left over from an earlier round is counted as wrong.
 * Reduction data: floats with small integer values, so that sums over any number of ranks
 * are exact and can be compared with ==. */
#ifndef BENCH_COMMON_PATTERN_H
#define BENCH_COMMON_PATTERN_H

#include <stddef.h>

unsigned bench_seed(int src, int dst, int round);
unsigned char bench_pattern_byte(unsigned seed, size_t offset);
void bench_pattern_fill(void *p, size_t bytes, unsigned seed);
void bench_pattern_poison(void *p, size_t bytes);
/* Number of bytes of p that differ from the pattern of seed. */
long long bench_pattern_check(const void *p, size_t bytes, unsigned seed);
/* The deliberate corruption switch: changes one byte of p (none when bytes is 0). */
void bench_pattern_corrupt(void *p, size_t bytes);

/* Element i (of the whole reduced vector) contributed by rank in round, and the sum over
 * nranks ranks. */
float bench_reduce_value(int rank, int round, size_t i);
float bench_reduce_expected(int nranks, int round, size_t i);
void bench_reduce_fill(float *v, size_t count, size_t first, int rank, int round);
/* Number of elements of v (elements first .. first+count-1) that differ from the sum. */
long long bench_reduce_check(const float *v, size_t count, size_t first, int nranks, int round);

#endif
