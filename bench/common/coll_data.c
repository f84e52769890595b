/* Buffer sizes, counts and validation data shared by the collective benchmarks.
 * Seeds: a block that rank s sends to everyone uses bench_seed(s, -1, round); a block that s
 * sends to rank d alone uses bench_seed(s, d, round). */
#include <stdlib.h>

#include "coll.h"

size_t coll_bytes_zero(const struct coll_ctx *c) {
  (void)c;
  return 0;
}

size_t coll_bytes_one(const struct coll_ctx *c) { return c->count * c->elem; }

size_t coll_bytes_all(const struct coll_ctx *c) { return c->count * c->elem * (size_t)c->b->size; }

void coll_prepare_blocks(struct coll_ctx *c) {
  for (int j = 0; j < c->b->size; j++) {
    c->counts[j] = (int)c->count;
    c->displs[j] = j * (int)c->count;
  }
}

void coll_prepare_split(struct coll_ctx *c) {
  int n = c->b->size;
  size_t base = c->count / (size_t)n, extra = c->count % (size_t)n;
  int at = 0;
  for (int j = 0; j < n; j++) {
    c->counts[j] = (int)(base + ((size_t)j < extra));
    c->displs[j] = at;
    at += c->counts[j];
  }
}

void coll_fill_one(struct coll_ctx *c, int round) {
  bench_buf_fill(&c->send, 0, c->bytes, bench_seed(c->b->rank, -1, round));
  bench_buf_poison(&c->recv, c->recv.bytes);
}

void coll_fill_per_dest(struct coll_ctx *c, int round) {
  for (int d = 0; d < c->b->size; d++)
    bench_buf_fill(&c->send, (size_t)d * c->bytes, c->bytes, bench_seed(c->b->rank, d, round));
  bench_buf_poison(&c->recv, c->recv.bytes);
}

long long coll_check_per_source(struct coll_ctx *c, int round, int to_me) {
  long long wrong = 0;
  for (int s = 0; s < c->b->size; s++)
    wrong += bench_buf_check(c->b, &c->recv, (size_t)s * c->bytes, c->bytes,
                             bench_seed(s, to_me ? c->b->rank : -1, round));
  return wrong;
}

long long coll_check_from_root(struct coll_ctx *c, int round, int per_dest) {
  return bench_buf_check(c->b, &c->recv, 0, c->bytes,
                         bench_seed(c->root, per_dest ? c->b->rank : -1, round));
}

void coll_fill_reduce(struct coll_ctx *c, int round) {
  bench_reduce_fill(c->send.host, c->count, 0, c->b->rank, round);
  bench_buf_upload(&c->send, 0, c->count * sizeof(float));
  bench_buf_poison(&c->recv, c->recv.bytes);
}

long long coll_check_reduce(struct coll_ctx *c, int round, size_t first, size_t count) {
  float *v = c->recv.host;
  bench_buf_download(&c->recv, 0, count * sizeof(float));
  if (c->b->opt.corrupt) bench_pattern_corrupt(v, count * sizeof(float));
  return bench_reduce_check(v, count, first, c->b->size, round);
}

void coll_fill_bcast(struct coll_ctx *c, int round) {
  if (c->b->rank == c->root)
    bench_buf_fill(&c->send, 0, c->bytes, bench_seed(c->root, -1, round));
  else
    bench_buf_poison(&c->send, c->bytes);
}

long long coll_check_bcast(struct coll_ctx *c, int round) {
  if (c->b->rank == c->root) return 0;
  return bench_buf_check(c->b, &c->send, 0, c->bytes, bench_seed(c->root, -1, round));
}
