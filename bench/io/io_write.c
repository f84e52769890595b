/* io_write: time per independent write of a cyclic distribution, every rank at once
 * (io/io_cyclic.h). */
#include "io_cyclic.h"

static const struct bench_spec kSpec = IO_SPEC("io_write", "Independent Write");

int main(int argc, char **argv) { return io_cyclic_main(&kSpec, 1, 0, argc, argv); }
