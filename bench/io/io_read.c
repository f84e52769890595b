/* io_read: time per independent read of a cyclic distribution, every rank at once
 * (io/io_cyclic.h). */
#include "io_cyclic.h"

static const struct bench_spec kSpec = IO_SPEC("io_read", "Independent Read");

int main(int argc, char **argv) { return io_cyclic_main(&kSpec, 0, 0, argc, argv); }
