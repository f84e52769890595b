/* How much CPU a rank uses while it waits in MPI_Recv: the first half of the ranks wait for a
 * message that the second half sends after sleeping a while. Prints each waiting rank's CPU
 * time as a share of one core over the wait.
 *
 * Usage: gpurun -np 2N blocked_recv [seconds]   (default 1 s) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double cpu_seconds(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 1.0;
  int rank, size, token = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int half = size / 2;
  if (size % 2 != 0) {
    if (rank == 0) fprintf(stderr, "blocked_recv needs an even number of ranks\n");
    MPI_Finalize();
    return 2;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank < half) {
    double w0 = MPI_Wtime(), c0 = cpu_seconds();
    MPI_Recv(&token, 1, MPI_INT, rank + half, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    double wall = MPI_Wtime() - w0, cpu = cpu_seconds() - c0;
    printf("rank %d waited %.2f s in MPI_Recv using %.1f%% of a core\n", rank, wall,
           100.0 * cpu / wall);
  } else {
    struct timespec ts = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
    nanosleep(&ts, NULL);
    MPI_Send(&token, 1, MPI_INT, rank - half, 0, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
