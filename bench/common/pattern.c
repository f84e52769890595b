/* Validation patterns; see pattern.h for what they guarantee. */
#include "pattern.h"

#include <string.h>

unsigned bench_seed(int src, int dst, int round) {
  unsigned s = (unsigned)(src + 1) * 2654435761u;
  s ^= (unsigned)(dst + 1) * 40503u;
  s ^= (unsigned)(round + 1) * 97u;
  return s;
}

unsigned char bench_pattern_byte(unsigned seed, size_t offset) {
  /* A cheap mix of seed and offset; the +1 keeps every byte away from the poison value 0. */
  unsigned h = seed + (unsigned)offset * 2246822519u;
  h ^= h >> 15;
  h *= 2654435761u;
  h ^= h >> 13;
  return (unsigned char)(1 + h % 255);
}

void bench_pattern_fill(void *p, size_t bytes, unsigned seed) {
  unsigned char *c = p;
  for (size_t i = 0; i < bytes; i++) c[i] = bench_pattern_byte(seed, i);
}

void bench_pattern_poison(void *p, size_t bytes) {
  if (bytes) memset(p, 0, bytes);
}

long long bench_pattern_check(const void *p, size_t bytes, unsigned seed) {
  const unsigned char *c = p;
  long long wrong = 0;
  for (size_t i = 0; i < bytes; i++) wrong += c[i] != bench_pattern_byte(seed, i);
  return wrong;
}

void bench_pattern_corrupt(void *p, size_t bytes) {
  if (bytes) ((unsigned char *)p)[bytes / 2] ^= 0x5a;
}

float bench_reduce_value(int rank, int round, size_t i) {
  return (float)(1 + (rank * 5 + round * 3 + (int)(i % 97)) % 16);
}

float bench_reduce_expected(int nranks, int round, size_t i) {
  float sum = 0.0f;
  for (int r = 0; r < nranks; r++) sum += bench_reduce_value(r, round, i);
  return sum;
}

void bench_reduce_fill(float *v, size_t count, size_t first, int rank, int round) {
  for (size_t k = 0; k < count; k++) v[k] = bench_reduce_value(rank, round, first + k);
}

long long bench_reduce_check(const float *v, size_t count, size_t first, int nranks, int round) {
  long long wrong = 0;
  for (size_t k = 0; k < count; k++)
    wrong += v[k] != bench_reduce_expected(nranks, round, first + k);
  return wrong;
}
