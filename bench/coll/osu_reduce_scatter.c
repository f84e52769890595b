/* osu_reduce_scatter: time per MPI_Reduce_scatter (sum of floats); the size is the
 * whole vector, each rank receives its share. */
#include "coll.h"

static void run_op(struct coll_ctx *c) {
  MPI_Reduce_scatter(c->send.ptr, c->recv.ptr, c->counts, MPI_FLOAT, MPI_SUM, c->b->comm);
}

static long long check(struct coll_ctx *c, int round) {
  int me = c->b->rank;
  return coll_check_reduce(c, round, (size_t)c->displs[me], (size_t)c->counts[me]);
}

static const struct coll_op kOp = {
    .reduction = 1,
    .send_bytes = coll_bytes_one,
    .recv_bytes = coll_bytes_one,
    .prepare = coll_prepare_split,
    .run = run_op,
    .fill = coll_fill_reduce,
    .check = check,
};

static const struct bench_spec kSpec = {
    .name = "osu_reduce_scatter",
    .title = "OSU MPI Reduce_scatter Latency Test",
    .accepts = BENCH_OPTS_COLL,
    .ranks = BENCH_RANKS_ANY,
    .min_size = 4,
    BENCH_COLL_COUNTS,
};

int main(int argc, char **argv) { return bench_coll_main(&kSpec, &kOp, argc, argv); }
