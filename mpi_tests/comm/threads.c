/* MPI_THREAD_MULTIPLE: two threads of every rank create, use and free communicators at the
 * same time, each over its own parent. Their context-id agreements run concurrently and must
 * neither clash nor wait for each other forever. */
#include <stddef.h>

#include "mtest.h"

enum { kRounds = 200 };

static void *worker(void *arg) {
  MPI_Comm parent = *(MPI_Comm *)arg;
  int r, n;
  MPI_Comm_rank(parent, &r);
  MPI_Comm_size(parent, &n);
  for (int i = 0; i < kRounds; ++i) {
    MPI_Comm c;
    MPI_Comm_dup(parent, &c);
    int got = -1;
    MPI_Request reqs[2];
    MPI_Status st[2];
    MPI_Irecv(&got, 1, MPI_INT, (r + n - 1) % n, i, c, &reqs[0]);
    MPI_Isend(&r, 1, MPI_INT, (r + 1) % n, i, c, &reqs[1]);
    MPI_Waitall(2, reqs, st);
    MTEST_CHECK(got == (r + n - 1) % n, "round %d: got %d", i, got);
    MPI_Comm_free(&c);
  }
  return NULL;
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MTEST_CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
  mtest_two_threads(worker);
  return mtest_finalize();
}
