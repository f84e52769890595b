/* osu_put_latency: the time of one MPI_Put from rank 0 into rank 1's window (-w), completed
 * by the synchronization of -s. */
#include "rma.h"

static const struct bench_spec kSpec = RMA_SPEC("osu_put_latency", "OSU MPI_Put Latency Test", 0);

int main(int argc, char **argv) { return rma_main(&kSpec, RMA_PUT, 0, argc, argv); }
