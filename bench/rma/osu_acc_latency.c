/* osu_acc_latency: the time of one MPI_Accumulate (MPI_SUM of unsigned chars) completed by the
 * synchronization of -s. */
#include "rma.h"

static const struct bench_spec kSpec = {
    .name = "osu_acc_latency",
    .title = "OSU MPI_Accumulate latency Test",
    .accepts = BENCH_OPTS_COMMON | BENCH_OPT_RMA,
    .ranks = BENCH_RANKS_TWO,
    .min_size = 1,
    .max_size = 4 << 20,
    .iters_small = 10000,
    .iters_large = 100,
    .warmup_small = 100,
    .warmup_large = 10,
    .large_size = 8192,
};

int main(int argc, char **argv) { return rma_main(&kSpec, RMA_ACC, 0, argc, argv); }
