/* osu_allreduce: time per MPI_Allreduce (sum of floats); with -q stream, per
 * MPIX_Allreduce_enqueue on a CUDA stream. */
#include "coll.h"

static void run_op(struct coll_ctx *c) {
  MPI_Allreduce(c->send.ptr, c->recv.ptr, (int)c->count, MPI_FLOAT, MPI_SUM, c->b->comm);
}

#if defined(MPIX_STREAM_NULL)
static void enqueue_op(struct coll_ctx *c) {
  MPIX_Allreduce_enqueue(c->send.ptr, c->recv.ptr, (int)c->count, MPI_FLOAT, MPI_SUM,
                         c->b->queue_comm);
}
#else
#define enqueue_op NULL /* run.c refuses -q stream for an MPI without MPIX streams */
#endif

static long long check(struct coll_ctx *c, int round) {
  return coll_check_reduce(c, round, 0, c->count);
}

static const struct coll_op kOp = {
    .reduction = 1,
    .send_bytes = coll_bytes_one,
    .recv_bytes = coll_bytes_one,
    .run = run_op,
    .enqueue = enqueue_op,
    .fill = coll_fill_reduce,
    .check = check,
};

static const struct bench_spec kSpec = {
    .name = "osu_allreduce",
    .title = "OSU MPI Allreduce Latency Test",
    .accepts = BENCH_OPTS_COLL | BENCH_OPT_STREAM,
    .ranks = BENCH_RANKS_ANY,
    .min_size = 4,
    BENCH_COLL_COUNTS,
};

int main(int argc, char **argv) { return bench_coll_main(&kSpec, &kOp, argc, argv); }
