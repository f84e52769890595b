/* osu_reduce: time per MPI_Reduce (sum of floats) to rank 0. */
#include "coll.h"

static void run_op(struct coll_ctx *c) {
  MPI_Reduce(c->send.ptr, c->recv.ptr, (int)c->count, MPI_FLOAT, MPI_SUM, c->root, c->b->comm);
}

static long long check(struct coll_ctx *c, int round) {
  return c->b->rank == c->root ? coll_check_reduce(c, round, 0, c->count) : 0;
}

static const struct coll_op kOp = {
    .reduction = 1,
    .send_bytes = coll_bytes_one,
    .recv_bytes = coll_bytes_one,
    .run = run_op,
    .fill = coll_fill_reduce,
    .check = check,
};

static const struct bench_spec kSpec = {
    .name = "osu_reduce",
    .title = "OSU MPI Reduce Latency Test",
    .accepts = BENCH_OPTS_COLL,
    .ranks = BENCH_RANKS_ANY,
    .min_size = 4,
    BENCH_COLL_COUNTS,
};

int main(int argc, char **argv) { return bench_coll_main(&kSpec, &kOp, argc, argv); }
