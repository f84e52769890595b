/* osu_ialltoall: overlap of MPI_Ialltoall of bytes to every rank with computation. */
#include "coll.h"

static void start_op(struct coll_ctx *c, MPI_Request *req) {
  MPI_Ialltoall(c->send.ptr, (int)c->count, MPI_CHAR, c->recv.ptr, (int)c->count, MPI_CHAR,
                c->b->comm, req);
}

static long long check(struct coll_ctx *c, int round) { return coll_check_per_source(c, round, 1); }

static const struct coll_op kOp = {
    .reduction = 0,
    .send_bytes = coll_bytes_all,
    .recv_bytes = coll_bytes_all,
    .start = start_op,
    .fill = coll_fill_per_dest,
    .check = check,
};

static const struct bench_spec kSpec = {
    .name = "osu_ialltoall",
    .title = "OSU MPI Non-blocking All-to-All Latency Test",
    .accepts = BENCH_OPTS_NBC,
    .ranks = BENCH_RANKS_ANY,
    .min_size = 1,
    BENCH_COLL_COUNTS,
};

int main(int argc, char **argv) { return bench_nbc_main(&kSpec, &kOp, argc, argv); }
