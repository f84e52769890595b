/* A rank that dies of a fault says so first: rank 1 writes through a bad pointer and reports
 * "rank 1: signal SIGSEGV (address not mapped, 0x10); backtrace:" with its stack on stderr,
 * then dies of SIGSEGV, which gpurun reports. Rank 0 set a SIGBUS handler of its own before
 * MPI_Init, which MPI_Init leaves in place. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "mtest.h"

static void own_handler(int sig) { (void)sig; }

__attribute__((noinline)) static void fault_here(volatile int *p) { *p = 42; }

int main(int argc, char **argv) {
  int rank;
  struct sigaction own, now;
  memset(&own, 0, sizeof own);
  own.sa_handler = own_handler;
  sigaction(SIGBUS, &own, NULL);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  sigaction(SIGBUS, NULL, &now);
  if (now.sa_handler != own_handler) {
    fprintf(stderr, "MPI_Init replaced the program's own SIGBUS handler\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1) fault_here((volatile int *)16);
  MPI_Barrier(MPI_COMM_WORLD); /* rank 0 waits here until gpurun ends the job */
  MPI_Finalize();
  return 0;
}
