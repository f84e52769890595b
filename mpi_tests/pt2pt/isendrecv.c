/* MPI_Isendrecv and MPI_Isendrecv_replace: around a ring at eager and rendezvous sizes, several
 * at once, tested to completion, with a derived type, with MPI_PROC_NULL, freed in flight; the
 * status is the receive's; a truncated receive and bad arguments are errors that name the call. */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static int rank, size, right, left;

static void ring(int n) {
  int *out = malloc(sizeof(int) * (n + 1)), *in = malloc(sizeof(int) * (n + 1));
  for (int i = 0; i < n; ++i) out[i] = rank * 7 + i, in[i] = -1;
  MPI_Request req;
  MPI_Status st;
  MPI_Isendrecv(out, n, MPI_INT, right, 10 + rank, in, n, MPI_INT, left, MPI_ANY_TAG,
                MPI_COMM_WORLD, &req);
  MTEST_CHECK(req != MPI_REQUEST_NULL, "no request for %d ints", n);
  MPI_Wait(&req, &st);
  int count = -1, bad = 0;
  MPI_Get_count(&st, MPI_INT, &count);
  MTEST_CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 10 + left && count == n,
              "n=%d: status source %d tag %d count %d", n, st.MPI_SOURCE, st.MPI_TAG, count);
  for (int i = 0; i < n; ++i) bad += in[i] != left * 7 + i;
  MTEST_CHECK(bad == 0, "n=%d: %d elements wrong", n, bad);
  /* The same in place; the buffer may be reused only after the wait. */
  MPI_Isendrecv_replace(out, n, MPI_INT, right, 3, left, 3, MPI_COMM_WORLD, &req);
  int done = 0;
  while (!done) MPI_Test(&req, &done, &st);
  bad = 0;
  for (int i = 0; i < n; ++i) bad += out[i] != left * 7 + i;
  MTEST_CHECK(bad == 0 && st.MPI_SOURCE == left, "replace n=%d: %d wrong, source %d", n, bad,
              st.MPI_SOURCE);
  free(out);
  free(in);
}

static void many_at_once(void) {
  enum { kMany = 8, kN = 5000 };
  static int out[kMany][kN], in[kMany][kN];
  MPI_Request reqs[kMany];
  for (int k = 0; k < kMany; ++k) {
    for (int i = 0; i < kN; ++i) out[k][i] = rank * 1000 + k * 10 + i % 10;
    /* Tags in reverse order of the receives' posting: each matches its own message. */
    MPI_Isendrecv(out[k], kN, MPI_INT, right, k, in[kMany - 1 - k], kN, MPI_INT, left,
                  kMany - 1 - k, MPI_COMM_WORLD, &reqs[k]);
  }
  MPI_Waitall(kMany, reqs, MPI_STATUSES_IGNORE);
  int bad = 0;
  for (int k = 0; k < kMany; ++k)
    for (int i = 0; i < kN; ++i) bad += in[k][i] != left * 1000 + k * 10 + i % 10;
  MTEST_CHECK(bad == 0, "%d elements wrong with %d exchanges at once", bad, kMany);
}

static void derived_and_proc_null(void) {
  MPI_Datatype every_other;
  MPI_Type_vector(100, 1, 2, MPI_DOUBLE, &every_other);
  MPI_Type_commit(&every_other);
  double buf[200];
  for (int i = 0; i < 200; ++i) buf[i] = rank + i * 0.5;
  MPI_Request req;
  MPI_Isendrecv_replace(buf, 1, every_other, right, 0, left, 0, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  int bad = 0;
  for (int i = 0; i < 200; ++i) bad += buf[i] != (i % 2 == 0 ? left : rank) + i * 0.5;
  MTEST_CHECK(bad == 0, "vector replace: %d elements wrong", bad);
  MPI_Type_free(&every_other);

  int x = 5, y = 9;
  MPI_Status st;
  MPI_Isendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &y, 1, MPI_INT, MPI_PROC_NULL, 0,
                MPI_COMM_WORLD, &req);
  MPI_Wait(&req, &st);
  int count = -1;
  MPI_Get_count(&st, MPI_INT, &count);
  MTEST_CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0 && y == 9,
              "MPI_PROC_NULL: source %d tag %d count %d y %d", st.MPI_SOURCE, st.MPI_TAG, count,
              y);
}

static void freed_in_flight(void) {
  int out = rank, in = -1;
  MPI_Request req;
  MPI_Isendrecv(&out, 1, MPI_INT, right, 77, &in, 1, MPI_INT, left, 77, MPI_COMM_WORLD, &req);
  MPI_Request_free(&req);
  MTEST_CHECK(req == MPI_REQUEST_NULL, "MPI_Request_free left the handle");
  /* The exchange finishes on its own: a later message on the same tags arrives after it. */
  int again = -1;
  MPI_Sendrecv(&out, 1, MPI_INT, right, 77, &again, 1, MPI_INT, left, 77, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE);
  MTEST_CHECK(again == left, "the message after the freed exchange is %d", again);
}

static void errors(void) {
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int big[4] = {1, 2, 3, 4}, small[2];
  MPI_Request req = MPI_REQUEST_NULL;
  mtest_expect_error(MPI_Isendrecv(big, 4, MPI_INT, size, 0, small, 2, MPI_INT, left, 0,
                                   MPI_COMM_WORLD, &req),
                     MPI_ERR_RANK, "Isendrecv(dest=size)", "MPI_Isendrecv");
  MTEST_CHECK(req == MPI_REQUEST_NULL, "a request after a bad argument");
  mtest_expect_error(MPI_Isendrecv_replace(big, 4, MPI_INT, right, 0, left, 0, MPI_COMM_WORLD,
                                           NULL),
                     MPI_ERR_ARG, "Isendrecv_replace(request=NULL)", "request");
  MPI_Isendrecv(big, 4, MPI_INT, right, 5, small, 2, MPI_INT, left, 5, MPI_COMM_WORLD, &req);
  mtest_expect_error(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE, "truncated exchange",
                     NULL);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  right = (rank + 1) % size;
  left = (rank + size - 1) % size;
  const int sizes[] = {0, 1, 1000, 1 << 18};
  for (int i = 0; i < 4; ++i) ring(sizes[i]);
  many_at_once();
  derived_and_proc_null();
  freed_in_flight();
  errors();
  return mtest_finalize();
}
