/* MPI_Barrier on subcommunicators: no member leaves before every member has entered. Each
 * member leaves a mark in a directory shared by the job before the barrier and checks the
 * marks of its communicator's members after it; one member is late in every round. */
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
  snprintf(dir, sizeof dir, "%s/comm_barrier.%d", tmp, (int)getppid());
  mkdir(dir, 0700);
  /* Three colours, so that the parts have different sizes (1..3 for up to 8 ranks). */
  MPI_Comm sub;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 3, rank, &sub);
  int srank, ssize;
  MPI_Comm_rank(sub, &srank);
  MPI_Comm_size(sub, &ssize);
  for (int round = 0; round < 12; ++round) {
    if (srank == round % ssize) usleep(2000);
    mark_path(path, sizeof path, dir, round, rank);
    FILE *f = fopen(path, "w");
    MTEST_CHECK(f != NULL, "cannot create %s", path);
    if (f) fclose(f);
    MPI_Barrier(sub);
    for (int r = rank % 3; r < size; r += 3) {
      mark_path(path, sizeof path, dir, round, r);
      MTEST_CHECK(access(path, F_OK) == 0, "round %d: rank %d left before rank %d entered", round,
                  rank, r);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  for (int round = 0; round < 12; ++round) {
    mark_path(path, sizeof path, dir, round, rank);
    unlink(path);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) rmdir(dir);
  MPI_Comm_free(&sub);
  return mtest_finalize();
}
