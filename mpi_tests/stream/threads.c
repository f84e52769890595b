/* MPI_THREAD_MULTIPLE, the use streams are made for: two threads of every rank each make a
 * host stream and a stream communicator over a parent of their own, then exchange messages on
 * it (plain and MPIX_Stream_ calls) while the other thread does the same; each thread's
 * messages must arrive on its own communicator. Then each frees its communicator and stream. */
#include <stddef.h>

#include "mtest.h"

enum { kRounds = 100 };

static void *worker(void *arg) {
  MPI_Comm parent = *(MPI_Comm *)arg;
  int r, n, tag_base;
  MPI_Comm_rank(parent, &r);
  MPI_Comm_size(parent, &n);
  MPIX_Stream stream;
  MPI_Comm comm;
  int rc = MPIX_Stream_create(MPI_INFO_NULL, &stream);
  MTEST_CHECK(rc == MPI_SUCCESS, "MPIX_Stream_create: %d", rc);
  rc = MPIX_Stream_comm_create(parent, stream, &comm);
  MTEST_CHECK(rc == MPI_SUCCESS, "MPIX_Stream_comm_create: %d", rc);
  /* Both threads use the same tags: only the communicators keep their messages apart. The
   * values carry an identity of the thread's parent: rank 0's handle of it, which differs
   * between the threads. */
  int id = (int)parent;
  MPI_Bcast(&id, 1, MPI_INT, 0, parent);
  tag_base = 5;
  for (int i = 0; i < kRounds; ++i) {
    int mine[2] = {r, id}, got[2] = {-1, -1};
    MPI_Request req;
    MPIX_Stream_irecv(got, 2, MPI_INT, (r + n - 1) % n, tag_base, comm, 0, 0, &req);
    if (i % 2 == 0) {
      MPI_Send(mine, 2, MPI_INT, (r + 1) % n, tag_base, comm);
    } else {
      MPIX_Stream_send(mine, 2, MPI_INT, (r + 1) % n, tag_base, comm, 0, 0);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MTEST_CHECK(got[0] == (r + n - 1) % n && got[1] == id,
                "round %d: got rank %d of communicator 0x%x, expected rank %d of 0x%x", i, got[0],
                (unsigned)got[1], (r + n - 1) % n, (unsigned)id);
  }
  MPI_Comm_free(&comm);
  rc = MPIX_Stream_free(&stream);
  MTEST_CHECK(rc == MPI_SUCCESS, "MPIX_Stream_free: %d", rc);
  return NULL;
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MTEST_CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
  mtest_two_threads(worker);
  return mtest_finalize();
}
