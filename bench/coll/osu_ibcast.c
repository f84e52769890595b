/* osu_ibcast: overlap of MPI_Ibcast of bytes from rank 0 with computation. */
#include "coll.h"

static void start_op(struct coll_ctx *c, MPI_Request *req) {
  MPI_Ibcast(c->send.ptr, (int)c->count, MPI_CHAR, c->root, c->b->comm, req);
}

static long long check(struct coll_ctx *c, int round) { return coll_check_bcast(c, round); }

static const struct coll_op kOp = {
    .reduction = 0,
    .send_bytes = coll_bytes_one,
    .recv_bytes = coll_bytes_zero,
    .start = start_op,
    .fill = coll_fill_bcast,
    .check = check,
};

static const struct bench_spec kSpec = {
    .name = "osu_ibcast",
    .title = "OSU MPI Non-blocking Broadcast Latency Test",
    .accepts = BENCH_OPTS_NBC,
    .ranks = BENCH_RANKS_ANY,
    .min_size = 1,
    BENCH_COLL_COUNTS,
};

int main(int argc, char **argv) { return bench_nbc_main(&kSpec, &kOp, argc, argv); }
