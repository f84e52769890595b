/* osu_gatherv: time per MPI_Gatherv of bytes from every rank to rank 0. */
#include "coll.h"

static void run_op(struct coll_ctx *c) {
  MPI_Gatherv(c->send.ptr, (int)c->count, MPI_CHAR, c->recv.ptr, c->counts, c->displs, MPI_CHAR,
              c->root, c->b->comm);
}

static long long check(struct coll_ctx *c, int round) {
  return c->b->rank == c->root ? coll_check_per_source(c, round, 0) : 0;
}

static const struct coll_op kOp = {
    .reduction = 0,
    .send_bytes = coll_bytes_one,
    .recv_bytes = coll_bytes_all,
    .prepare = coll_prepare_blocks,
    .run = run_op,
    .fill = coll_fill_one,
    .check = check,
};

static const struct bench_spec kSpec = {
    .name = "osu_gatherv",
    .title = "OSU MPI Gatherv Latency Test",
    .accepts = BENCH_OPTS_COLL,
    .ranks = BENCH_RANKS_ANY,
    .min_size = 1,
    BENCH_COLL_COUNTS,
};

int main(int argc, char **argv) { return bench_coll_main(&kSpec, &kOp, argc, argv); }
