/* MPI_Barrier: no rank leaves before every rank has entered. Each rank leaves a mark in a
 * directory shared by the job before the barrier and checks every mark after it. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mtest.h"

static void mark_path(char *out, size_t size, const char *dir, int round, int rank) {
  snprintf(out, size, "%s/mark.%d.%d", dir, round, rank);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  char dir[512], path[600];
  /* The directory is named after the parent's pid: gpurun, the same for every rank. */
  snprintf(dir, sizeof dir, "%s/barrier_order.%d", tmp, (int)getppid());
  mkdir(dir, 0700);
  for (int round = 0; round < 20; ++round) {
    if (rank == round % size) usleep(2000); /* one rank is late each round */
    mark_path(path, sizeof path, dir, round, rank);
    FILE *f = fopen(path, "w");
    MTEST_CHECK(f != NULL, "cannot create %s", path);
    if (f) fclose(f);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int r = 0; r < size; ++r) {
      mark_path(path, sizeof path, dir, round, r);
      MTEST_CHECK(access(path, F_OK) == 0, "round %d: rank %d left the barrier before rank %d "
                  "entered it", round, rank, r);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int round = 0; round < 20; ++round) {
    mark_path(path, sizeof path, dir, round, rank);
    unlink(path);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) rmdir(dir);
  return mtest_finalize();
}
