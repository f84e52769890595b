/* osu_bcast: time per MPI_Bcast of bytes from rank 0. */
#include "coll.h"

static void run_op(struct coll_ctx *c) {
  MPI_Bcast(c->send.ptr, (int)c->count, MPI_CHAR, c->root, c->b->comm);
}

static long long check(struct coll_ctx *c, int round) { return coll_check_bcast(c, round); }

static const struct coll_op kOp = {
    .reduction = 0,
    .send_bytes = coll_bytes_one,
    .recv_bytes = coll_bytes_zero,
    .run = run_op,
    .fill = coll_fill_bcast,
    .check = check,
};

static const struct bench_spec kSpec = {
    .name = "osu_bcast",
    .title = "OSU MPI Broadcast Latency Test",
    .accepts = BENCH_OPTS_COLL,
    .ranks = BENCH_RANKS_ANY,
    .min_size = 1,
    BENCH_COLL_COUNTS,
};

int main(int argc, char **argv) { return bench_coll_main(&kSpec, &kOp, argc, argv); }
