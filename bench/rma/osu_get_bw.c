/* osu_get_bw: bandwidth of -W MPI_Gets completed together by the synchronization of -s. */
#include "rma.h"

static const struct bench_spec kSpec = RMA_SPEC("osu_get_bw", "OSU MPI_Get Bandwidth Test", 1);

int main(int argc, char **argv) { return rma_main(&kSpec, RMA_GET, 1, argc, argv); }
