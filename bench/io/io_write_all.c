/* io_write_all: time per collective write of a cyclic distribution (io/io_cyclic.h). */
#include "io_cyclic.h"

static const struct bench_spec kSpec = IO_SPEC("io_write_all", "Collective Write");

int main(int argc, char **argv) { return io_cyclic_main(&kSpec, 1, 1, argc, argv); }
