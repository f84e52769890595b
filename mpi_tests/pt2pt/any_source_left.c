/* Receives nothing can match any more must not hang (pml/leave.cc):
 * - every rank frees (MPI_Request_free) a receive from MPI_ANY_SOURCE and one from its right
 *   neighbour that no message matches, then finalizes: MPI_Finalize cancels them with a warning
 *   instead of waiting for ever (every rank is in MPI_Finalize);
 * - rank 0 then blocks on a receive from MPI_ANY_SOURCE after every other rank has finalized,
 *   in MPI_Recv, MPI_Wait, MPI_Waitany, MPI_Waitsome, MPI_Waitall (MPI_ERR_IN_STATUS) and
 *   MPI_Sendrecv, and probes from it with MPI_Probe and MPI_Mprobe: each fails with
 *   MPI_ERR_PROC_ABORTED and says so;
 * - while a send to itself still matches such a receive (posted before or after it), as the
 *   standard allows, and its data arrives.
 * The other ranks finalize first, so the verdict is rank 0's. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mtest.h"

static int class_of(int rc) {
  int cls = rc;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  return cls;
}

static void expect_alone(int rc, const char *what) {
  int cls = MPI_SUCCESS, len = 0;
  char text[MPI_MAX_ERROR_STRING] = "";
  if (rc != MPI_SUCCESS) {
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, text, &len);
  }
  MTEST_CHECK(cls == MPI_ERR_PROC_ABORTED, "%s: class %d (%s)", what, cls, text);
  MTEST_CHECK(strstr(text, "MPI_ANY_SOURCE") != NULL && strstr(text, "MPI_Finalize") != NULL,
              "%s: message \"%s\"", what, text);
}

/* A send to itself matches a receive from MPI_ANY_SOURCE, with every other rank gone. */
static void self_send(int receive_first) {
  int in = 0, out = 42 + receive_first;
  MPI_Request r, s;
  if (receive_first) MPI_Irecv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &r);
  MPI_Isend(&out, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &s);
  int rc = receive_first
               ? MPI_Wait(&r, MPI_STATUS_IGNORE)
               : MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  MTEST_CHECK(rc == MPI_SUCCESS && in == out, "send to itself (receive first %d): rc %d, got %d",
              receive_first, rc, in);
}

/* Rank 0, every other rank gone: each blocking receive and probe from MPI_ANY_SOURCE fails. */
static void blocked_alone(void) {
  int x = 0;
  expect_alone(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
               "MPI_Recv");
  MPI_Request r;
  MPI_Status st;
  MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &r);
  expect_alone(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
  int index = -1, count = 0;
  MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &r);
  expect_alone(MPI_Waitany(1, &r, &index, MPI_STATUS_IGNORE), "MPI_Waitany");
  /* These report MPI_ERR_IN_STATUS, the status the class. */
  for (int all = 0; all < 2; ++all) {
    MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &r);
    int rc = all ? MPI_Waitall(1, &r, &st) : MPI_Waitsome(1, &r, &count, &index, &st);
    MTEST_CHECK(class_of(rc) == MPI_ERR_IN_STATUS && class_of(st.MPI_ERROR) == MPI_ERR_PROC_ABORTED,
                "%s: class %d, status class %d", all ? "MPI_Waitall" : "MPI_Waitsome", class_of(rc),
                class_of(st.MPI_ERROR));
  }
  int y = 0;
  expect_alone(MPI_Sendrecv(&x, 1, MPI_INT, 0, 8, &y, 1, MPI_INT, MPI_ANY_SOURCE, 6, MPI_COMM_WORLD,
                            MPI_STATUS_IGNORE),
               "MPI_Sendrecv");
  MPI_Recv(&x, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* its send, to itself */
  expect_alone(MPI_Probe(MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &st), "MPI_Probe");
  MPI_Message msg;
  expect_alone(MPI_Mprobe(MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &msg, &st), "MPI_Mprobe");
}

int main(int argc, char **argv) {
  int rank, size, a = 0, b = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Request freed[2];
  MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &freed[0]);
  MPI_Irecv(&b, 1, MPI_INT, (rank + 1) % size, 98, MPI_COMM_WORLD, &freed[1]);
  MPI_Request_free(&freed[0]);
  MPI_Request_free(&freed[1]);
  if (rank != 0) {
    MPI_Finalize();
    return 0;
  }
  blocked_alone();
  self_send(1);
  self_send(0);
  int errors = mtest_errors();
  if (errors == 0) printf(" No Errors\n");
  fflush(stdout);
  MPI_Finalize();
  return errors != 0;
}
