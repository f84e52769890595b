/* osu_iallreduce: overlap of MPI_Iallreduce (sum of floats) with computation. */
#include "coll.h"

static void start_op(struct coll_ctx *c, MPI_Request *req) {
  MPI_Iallreduce(c->send.ptr, c->recv.ptr, (int)c->count, MPI_FLOAT, MPI_SUM, c->b->comm, req);
}

static long long check(struct coll_ctx *c, int round) {
  return coll_check_reduce(c, round, 0, c->count);
}

static const struct coll_op kOp = {
    .reduction = 1,
    .send_bytes = coll_bytes_one,
    .recv_bytes = coll_bytes_one,
    .start = start_op,
    .fill = coll_fill_reduce,
    .check = check,
};

static const struct bench_spec kSpec = {
    .name = "osu_iallreduce",
    .title = "OSU MPI Non-blocking Allreduce Latency Test",
    .accepts = BENCH_OPTS_NBC,
    .ranks = BENCH_RANKS_ANY,
    .min_size = 4,
    BENCH_COLL_COUNTS,
};

int main(int argc, char **argv) { return bench_nbc_main(&kSpec, &kOp, argc, argv); }
