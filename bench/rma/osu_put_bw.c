/* osu_put_bw: bandwidth of -W MPI_Puts completed together by the synchronization of -s. */
#include "rma.h"

static const struct bench_spec kSpec = {
    .name = "osu_put_bw",
    .title = "OSU MPI_Put Bandwidth Test",
    .accepts = BENCH_OPTS_COMMON | BENCH_OPT_RMA | BENCH_OPT_WINDOW,
    .ranks = BENCH_RANKS_TWO,
    .min_size = 1,
    .max_size = 4 << 20,
    .iters_small = 100,
    .iters_large = 20,
    .warmup_small = 10,
    .warmup_large = 2,
    .large_size = 8192,
};

int main(int argc, char **argv) { return rma_main(&kSpec, RMA_PUT, 1, argc, argv); }
