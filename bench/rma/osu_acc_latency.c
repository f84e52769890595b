/* osu_acc_latency: the time of one MPI_Accumulate (MPI_SUM of unsigned chars) into rank 1's
 * window (-w), completed by the synchronization of -s. */
#include "rma.h"

static const struct bench_spec kSpec =
    RMA_SPEC("osu_acc_latency", "OSU MPI_Accumulate latency Test", 0);

int main(int argc, char **argv) { return rma_main(&kSpec, RMA_ACC, 0, argc, argv); }
