/* MPI_Finalize ends every thread that the library and the transports under it started: the
 * process leaves MPI with as many threads as it entered with (a thread left running until the
 * process exits races the kernel's clean-up of the process: a network library's thread killed
 * at exit made the launcher's wait for the rank take seconds on a busy machine). Each rank
 * sends around a ring, small and large messages, so that every transport in use connects.
 * After MPI_Finalize no rank can tell another; each prints its own failure. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mtest.h"

/* The threads of this process now (entries of /proc/self/task), -1 when unreadable. */
static int count_threads(void) {
  DIR *dir = opendir("/proc/self/task");
  if (dir == NULL) return -1;
  int n = 0;
  for (struct dirent *e = readdir(dir); e != NULL; e = readdir(dir))
    if (e->d_name[0] != '.') ++n;
  closedir(dir);
  return n;
}

/* Threads that a sanitizer starts in the process: ThreadSanitizer's background thread, which
 * starts with the first thread the process creates and stays (so a library thread that stays
 * still makes one too many). */
static int sanitizer_threads(void) {
#if defined(__SANITIZE_THREAD__)
  return 1;
#else
  return 0;
#endif
}

static void ring(int rank, int size, int bytes) {
  char *out = malloc(bytes), *in = malloc(bytes);
  memset(out, rank + 1, bytes);
  memset(in, 0, bytes);
  int left = (rank + size - 1) % size;
  MPI_Sendrecv(out, bytes, MPI_CHAR, (rank + 1) % size, 7, in, bytes, MPI_CHAR, left, 7,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MTEST_CHECK(in[0] == left + 1 && in[bytes - 1] == left + 1, "%d bytes from rank %d", bytes,
              left);
  free(out);
  free(in);
}

int main(int argc, char **argv) {
  int before = count_threads();
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ring(rank, size, 8);
  ring(rank, size, 1 << 20);
  MPI_Barrier(MPI_COMM_WORLD);
  int errors = mtest_errors();
  MPI_Finalize();
  int after = count_threads();
  if (before < 1 || after != before + sanitizer_threads()) {
    printf("check failed: rank %d entered MPI_Init with %d threads and left MPI_Finalize with "
           "%d\n", rank, before, after);
    ++errors;
  }
  if (errors != 0) printf("check failed: rank %d: %d errors\n", rank, errors);
  else if (rank == 0) printf(" No Errors\n");
  return 0;
}
