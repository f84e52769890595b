/* Passive-target progress: rank 0 waits for a value outside MPI (reading its own window part,
 * no MPI call) while rank 1 locks rank 0, puts the value and accumulates into it, then reads
 * it back. Across hosts the target's side answers only while it is in MPI or its progress
 * helper runs: run with GPURUN_PROGRESS_HELPER=on, the value arrives while rank 0 waits; without
 * a helper rank 0 gives up after 20 s and reports it. Other ranks only take part in the window. */
#include <time.h>
#include <unistd.h>

#include "mtest.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int *mem = NULL;
  MPI_Win win;
  MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  mem[0] = 0;
  mem[1] = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    volatile int *seen = mem;
    double give_up = now() + 20;
    MTEST_RACY_READS_BEGIN();
    while ((seen[0] != 42 || seen[1] != 7) && now() < give_up) usleep(100);
    int first = seen[0], second = seen[1];
    MTEST_RACY_READS_END();
    MTEST_CHECK(first == 42 && second == 7,
                "rank 0 saw %d and %d while outside MPI (want 42 and 7): nothing answered for it",
                first, second);
  } else if (rank == 1) {
    int value = 42, add = 3, back[2] = {0, 0};
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Accumulate(&add, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_SUM, win);
    MPI_Accumulate(&add, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_unlock(0, win);
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    add = 1;
    MPI_Accumulate(&add, 1, MPI_INT, 0, 1, 1, MPI_INT, MPI_SUM, win);
    MPI_Put(&value, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
    MPI_Get(back, 2, MPI_INT, 0, 0, 2, MPI_INT, win);
    MPI_Win_unlock(0, win);
    MTEST_CHECK(back[0] == 42 && back[1] == 7, "rank 1 read back %d and %d", back[0], back[1]);
  }
  MPI_Win_free(&win);
  return mtest_finalize();
}
