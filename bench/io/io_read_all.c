/* io_read_all: time per collective read of a cyclic distribution (io/io_cyclic.h). */
#include "io_cyclic.h"

static const struct bench_spec kSpec = IO_SPEC("io_read_all", "Collective Read");

int main(int argc, char **argv) { return io_cyclic_main(&kSpec, 0, 1, argc, argv); }
