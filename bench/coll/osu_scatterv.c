/* osu_scatterv: time per MPI_Scatterv of bytes to every rank from rank 0. */
#include "coll.h"

static void run_op(struct coll_ctx *c) {
  MPI_Scatterv(c->send.ptr, c->counts, c->displs, MPI_CHAR, c->recv.ptr, (int)c->count, MPI_CHAR,
               c->root, c->b->comm);
}

static long long check(struct coll_ctx *c, int round) { return coll_check_from_root(c, round, 1); }

static const struct coll_op kOp = {
    .reduction = 0,
    .send_bytes = coll_bytes_all,
    .recv_bytes = coll_bytes_one,
    .prepare = coll_prepare_blocks,
    .run = run_op,
    .fill = coll_fill_per_dest,
    .check = check,
};

static const struct bench_spec kSpec = {
    .name = "osu_scatterv",
    .title = "OSU MPI Scatterv Latency Test",
    .accepts = BENCH_OPTS_COLL,
    .ranks = BENCH_RANKS_ANY,
    .min_size = 1,
    BENCH_COLL_COUNTS,
};

int main(int argc, char **argv) { return bench_coll_main(&kSpec, &kOp, argc, argv); }
