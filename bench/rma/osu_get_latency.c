/* osu_get_latency: the time of one MPI_Get from rank 1's window (-w) into rank 0, completed
 * by the synchronization of -s. */
#include "rma.h"

static const struct bench_spec kSpec = RMA_SPEC("osu_get_latency", "OSU MPI_Get latency Test", 0);

int main(int argc, char **argv) { return rma_main(&kSpec, RMA_GET, 0, argc, argv); }
