/* osu_put_bw: bandwidth of -W MPI_Puts completed together by the synchronization of -s. */
#include "rma.h"

static const struct bench_spec kSpec = RMA_SPEC("osu_put_bw", "OSU MPI_Put Bandwidth Test", 1);

int main(int argc, char **argv) { return rma_main(&kSpec, RMA_PUT, 1, argc, argv); }
