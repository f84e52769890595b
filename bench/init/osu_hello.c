/* osu_hello: MPI_Init, a hello from rank 0 with the number of processes, MPI_Finalize. */
#include <stdio.h>

#include "bench.h"

static const struct bench_spec kSpec = {
    .name = "osu_hello",
    .title = "OSU MPI Hello World Test",
    .accepts = 0,
    .ranks = BENCH_RANKS_ANY,
    .sizeless = 1,
    .custom_text = 1,
};

int main(int argc, char **argv) {
  struct bench b;
  int status = bench_start(&b, &kSpec, &argc, &argv);
  if (status >= 0) return status;
  bench_add_column(&b, "Processes", "processes", 0, 0);
  bench_print_header(&b);
  if (b.rank == 0 && b.opt.format == BENCH_FORMAT_TEXT)
    printf("This is a test with %d processes\n", b.size);
  double v[1] = {b.size};
  bench_row(&b, -1, v, -1);
  return bench_finish(&b);
}
