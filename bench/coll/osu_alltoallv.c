/* osu_alltoallv: time per MPI_Alltoallv of bytes to every rank. */
#include "coll.h"

static void run_op(struct coll_ctx *c) {
  MPI_Alltoallv(c->send.ptr, c->counts, c->displs, MPI_CHAR, c->recv.ptr, c->counts, c->displs,
                MPI_CHAR, c->b->comm);
}

static long long check(struct coll_ctx *c, int round) { return coll_check_per_source(c, round, 1); }

static const struct coll_op kOp = {
    .reduction = 0,
    .send_bytes = coll_bytes_all,
    .recv_bytes = coll_bytes_all,
    .prepare = coll_prepare_blocks,
    .run = run_op,
    .fill = coll_fill_per_dest,
    .check = check,
};

static const struct bench_spec kSpec = {
    .name = "osu_alltoallv",
    .title = "OSU MPI All-to-Allv Personalized Exchange Latency Test",
    .accepts = BENCH_OPTS_COLL,
    .ranks = BENCH_RANKS_ANY,
    .min_size = 1,
    BENCH_COLL_COUNTS,
};

int main(int argc, char **argv) { return bench_coll_main(&kSpec, &kOp, argc, argv); }
