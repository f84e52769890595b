/* Bad arguments to the collectives under MPI_ERRORS_RETURN: each gives its error class and a
 * message that names the call and the argument, on every rank that made the mistake, and no
 * rank that was right hangs. Counts that do not match between ranks are found by the ranks
 * that receive. A collective after all this still works. */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static int rank, size;

static void argument_errors(void) {
  int a[8] = {0}, b[8] = {0}, counts[16], displs[16];
  MPI_Request req;
  MPI_Comm w = MPI_COMM_WORLD;
  mtest_expect_error(MPI_Bcast(a, 1, MPI_INT, size, w), MPI_ERR_ROOT, "root = size", "MPI_Bcast");
  mtest_expect_error(MPI_Bcast(a, 1, MPI_INT, -1, w), MPI_ERR_ROOT, "root = -1", "root");
  mtest_expect_error(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, w), MPI_ERR_BUFFER, "bcast in place",
                     "MPI_IN_PLACE");
  mtest_expect_error(MPI_Bcast(NULL, 1, MPI_INT, 0, w), MPI_ERR_BUFFER, "null buffer", "buf");
  mtest_expect_error(MPI_Bcast(a, 1, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM, "comm null", "comm");
  mtest_expect_error(MPI_Allreduce(a, b, -1, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT, "count -1",
                     "count");
  mtest_expect_error(MPI_Allreduce(a, b, 1, MPI_DATATYPE_NULL, MPI_SUM, w), MPI_ERR_TYPE,
                     "type null", NULL);
  MPI_Datatype loose;
  MPI_Type_contiguous(2, MPI_INT, &loose);
  mtest_expect_error(MPI_Allreduce(a, b, 1, loose, MPI_SUM, w), MPI_ERR_TYPE, "uncommitted",
                     "commit");
  MPI_Type_free(&loose);
  mtest_expect_error(MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL, w), MPI_ERR_OP, "op null", NULL);
  mtest_expect_error(MPI_Allreduce(a, b, 1, MPI_DOUBLE, MPI_BAND, w), MPI_ERR_OP, "band on double",
                     "MPI_BAND");
  mtest_expect_error(MPI_Allreduce(a, b, 1, MPI_INT, MPI_MAXLOC, w), MPI_ERR_OP, "maxloc on int",
                     NULL);
  mtest_expect_error(MPI_Allreduce(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER,
                     "recv in place", "recvbuf");
  mtest_expect_error(MPI_Allreduce(a, a, 1, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER, "aliased",
                     "MPI_IN_PLACE");
  mtest_expect_error(MPI_Ibcast(a, 1, MPI_INT, 0, w, NULL), MPI_ERR_ARG, "null request", "request");
  mtest_expect_error(MPI_Iallreduce(a, b, 1, MPI_INT, MPI_SUM, w, &req), MPI_SUCCESS,
                     "good Iallreduce", NULL);
  mtest_expect_error(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS, "its wait", NULL);
  /* The root passes recvbuf = MPI_IN_PLACE, the others sendbuf = MPI_IN_PLACE: all wrong. */
  mtest_expect_error(MPI_Reduce(rank == 0 ? a : MPI_IN_PLACE, rank == 0 ? MPI_IN_PLACE : b, 1,
                                MPI_INT, MPI_SUM, 0, w),
                     MPI_ERR_BUFFER, "reduce in place off the root", "MPI_IN_PLACE");
  /* Only the ranks that passed MPI_IN_PLACE off the root are wrong; the root's call works. */
  mtest_expect_error(MPI_Scatter(a, 1, MPI_INT, rank == 0 ? b : MPI_IN_PLACE, 1, MPI_INT, 0, w),
                     rank == 0 ? MPI_SUCCESS : MPI_ERR_BUFFER, "scatter in place off the root",
                     "at the root");
  mtest_expect_error(MPI_Allgatherv(a, 1, MPI_INT, b, NULL, displs, MPI_INT, w), MPI_ERR_ARG,
                     "null counts", "recvcounts");
  for (int i = 0; i < size; ++i) counts[i] = i == size - 1 ? -2 : 1, displs[i] = i;
  mtest_expect_error(MPI_Allgatherv(a, 1, MPI_INT, b, counts, displs, MPI_INT, w), MPI_ERR_COUNT,
                     "negative count", "recvcounts[");
  MPI_Datatype types[16];
  for (int i = 0; i < size; ++i) counts[i] = 1, displs[i] = 0, types[i] = MPI_INT;
  types[size - 1] = MPI_DATATYPE_NULL;
  mtest_expect_error(MPI_Alltoallw(a, counts, displs, types, b, counts, displs, types, w),
                     MPI_ERR_TYPE, "alltoallw null type", "types[");
}

/* A mismatch's error: MPI_ERR_TRUNCATE where more came than expected, MPI_ERR_ARG where less
 * (a relay whose part failed sends nothing on: coll/basic.h's poison). */
static void expect_mismatch(int rc, const char *what) {
  int cls = MPI_SUCCESS;
  MPI_Error_class(rc, &cls);
  mtest_expect_error(rc, cls == MPI_ERR_TRUNCATE ? MPI_ERR_TRUNCATE : MPI_ERR_ARG, what,
                     "do not match");
}

/* Counts that differ between ranks: a rank that receives more than it expects gets
 * MPI_ERR_TRUNCATE, one that receives less another error; a rank whose part failed sends the
 * ranks after it nothing, so they fail too. Nobody hangs, and some rank always reports. */
static void mismatch_errors(void) {
  int *buf = calloc(8192, sizeof(int)), *out = calloc(8192, sizeof(int));
  for (int n_root = 4; n_root <= 4096; n_root *= 1024) {
    int failed[3] = {0, 0, 0}, any[3];
    int n = rank == 0 ? n_root : 2 * n_root; /* the root sends fewer than the others expect */
    int rc = MPI_Bcast(buf, n, MPI_INT, 0, MPI_COMM_WORLD);
    failed[0] = rc != MPI_SUCCESS;
    if (rc != MPI_SUCCESS) mtest_expect_error(rc, MPI_ERR_ARG, "short bcast", "do not match");
    n = rank == 0 ? 2 * n_root : n_root; /* the root sends more */
    rc = MPI_Bcast(buf, n, MPI_INT, 0, MPI_COMM_WORLD);
    failed[1] = rc != MPI_SUCCESS;
    if (rc != MPI_SUCCESS) expect_mismatch(rc, "long bcast");
    n = rank == 0 ? n_root : 2 * n_root;
    rc = MPI_Allreduce(buf, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    failed[2] = rc != MPI_SUCCESS;
    MPI_Allreduce(failed, any, 3, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MTEST_CHECK(any[0] && any[1] && any[2], "n %d: a mismatch went unreported (%d %d %d)", n_root,
                any[0], any[1], any[2]);
    MTEST_CHECK(rank != 0 || !failed[0], "the root of a bcast has nothing to find wrong");
  }
  free(buf);
  free(out);
}

/* A rank's own send and receive blocks that differ, on a communicator of that rank alone: an
 * error, and the receive buffer keeps its bytes (a null one with a count of 0 is never
 * written). */
static void own_block_errors(void) {
  MPI_Comm self;
  MPI_Comm_dup(MPI_COMM_SELF, &self);
  MPI_Comm_set_errhandler(self, MPI_ERRORS_RETURN);
  int send[8] = {1, 2, 3, 4, 5, 6, 7, 8}, recv[8], zero = 0, one = 1;
  for (int i = 0; i < 8; ++i) recv[i] = -1;
  expect_mismatch(MPI_Allgather(send, 2, MPI_INT, recv, 1, MPI_INT, self), "allgather 2 -> 1");
  expect_mismatch(MPI_Alltoall(send, 1, MPI_INT, recv, 1, MPI_SHORT, self),
                  "alltoall int -> short");
  expect_mismatch(MPI_Gather(send, 3, MPI_INT, recv, 2, MPI_INT, 0, self), "gather 3 -> 2");
  expect_mismatch(MPI_Scatter(send, 2, MPI_INT, recv, 3, MPI_INT, 0, self), "scatter 2 -> 3");
  expect_mismatch(MPI_Allgatherv(send, 7, MPI_INT, NULL, &zero, &zero, MPI_INT, self),
                  "allgatherv 7 -> 0");
  expect_mismatch(MPI_Gatherv(send, 7, MPI_INT, NULL, &zero, &zero, MPI_INT, 0, self),
                  "gatherv 7 -> 0");
  expect_mismatch(MPI_Alltoallv(send, &one, &zero, MPI_DOUBLE, recv, &one, &zero, MPI_INT, self),
                  "alltoallv double -> int");
  expect_mismatch(MPI_Scatterv(send, &one, &zero, MPI_DOUBLE, recv, 1, MPI_INT, 0, self),
                  "scatterv double -> int");
  /* Empty blocks at null buffers, whatever their displacements: nothing to move, no error. */
  int minus_one = -1;
  mtest_expect_error(
      MPI_Alltoallv(NULL, &zero, &minus_one, MPI_INT, NULL, &zero, &minus_one, MPI_INT, self),
      MPI_SUCCESS, "alltoallv of empty blocks at null", NULL);
  int touched = 0;
  for (int i = 0; i < 8; ++i) touched += recv[i] != -1;
  MTEST_CHECK(touched == 0, "%d receive elements written by collectives that failed", touched);
  MPI_Comm_free(&self);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  argument_errors();
  own_block_errors();
  if (size > 1) mismatch_errors();
  int x = 1;
  MPI_Barrier(MPI_COMM_WORLD);
  mtest_expect_error(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
                     MPI_SUCCESS, "allreduce afterwards", NULL);
  MTEST_CHECK(x == size, "allreduce afterwards gave %d", x);
  return mtest_finalize();
}
