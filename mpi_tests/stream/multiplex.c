/* Multiplex stream communicators: rank r attaches 1 + r % 3 host streams (so the ranks attach
 * different numbers), and sends its right neighbour one message from each of its streams to
 * each of the neighbour's, all with one tag. The neighbour receives them in the reverse order
 * of the pairs: each receive must get the message of its own pair (one channel per pair), by
 * MPIX_Stream_irecv from the rank and by MPIX_Stream_recv from MPI_ANY_SOURCE. Indices beyond
 * either side's streams are MPI_ERR_ARG; a multiplex communicator of no stream has
 * MPIX_STREAM_NULL at index 0; one rank attaching more streams than gpurun multiplexes makes
 * the call fail on every rank (MPI_ERR_ARG), with no communicator made. */
#include <stdio.h>
#include <stdlib.h>

#include "mtest.h"

#define MAX_STREAMS 3

static int streams_of(int rank) { return 1 + rank % MAX_STREAMS; }

static void exchange(MPI_Comm mc, int rank, int size) {
  int to = (rank + 1) % size, from = (rank + size - 1) % size;
  int mine = streams_of(rank), theirs_to = streams_of(to), theirs_from = streams_of(from);
  int got[MAX_STREAMS][MAX_STREAMS];
  MPI_Request reqs[MAX_STREAMS * MAX_STREAMS];
  int n = 0;
  /* Receives of all but pair (0, 0), posted from the last pair to the first. */
  for (int i = theirs_from - 1; i >= 0; --i)
    for (int j = mine - 1; j >= 0; --j) {
      got[i][j] = -1;
      if (i != 0 || j != 0)
        MPIX_Stream_irecv(&got[i][j], 1, MPI_INT, from, 9, mc, i, j, &reqs[n++]);
    }
  for (int i = 0; i < mine; ++i)
    for (int j = 0; j < theirs_to; ++j) {
      int value = rank * 100 + i * 10 + j;
      MPIX_Stream_send_c(&value, 1, MPI_INT, to, 9, mc, i, j);
    }
  MPI_Status status;
  MPIX_Stream_recv(&got[0][0], 1, MPI_INT, MPI_ANY_SOURCE, 9, mc, 0, 0, &status);
  MTEST_CHECK(status.MPI_SOURCE == from, "ANY_SOURCE receive came from %d", status.MPI_SOURCE);
  MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
  for (int i = 0; i < theirs_from; ++i)
    for (int j = 0; j < mine; ++j)
      MTEST_CHECK(got[i][j] == from * 100 + i * 10 + j, "pair (%d, %d) from %d got %d", i, j, from,
                  got[i][j]);
}

static void check_indices(MPI_Comm mc, int rank, int size) {
  int to = (rank + 1) % size, x = 0;
  mtest_expect_arg_error(MPIX_Stream_send(&x, 1, MPI_INT, to, 1, mc, streams_of(rank), 0),
                         MPI_ERR_ARG, "MPIX_Stream_send", "source_stream_index");
  mtest_expect_arg_error(MPIX_Stream_send(&x, 1, MPI_INT, to, 1, mc, 0, streams_of(to)),
                         MPI_ERR_ARG, "MPIX_Stream_send", "dest_stream_index");
  MPI_Request req;
  mtest_expect_arg_error(MPIX_Stream_irecv(&x, 1, MPI_INT, to, 1, mc, -1, 0, &req), MPI_ERR_ARG,
                         "MPIX_Stream_irecv", "source_stream_index");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPIX_Stream streams[MAX_STREAMS];
  int mine = streams_of(rank);
  for (int i = 0; i < mine; ++i) MPIX_Stream_create(MPI_INFO_NULL, &streams[i]);
  MPI_Comm mc;
  int rc = MPIX_Stream_comm_create_multiplex(MPI_COMM_WORLD, mine, streams, &mc);
  mtest_expect_error(rc, MPI_SUCCESS, "MPIX_Stream_comm_create_multiplex", NULL);
  MPI_Comm_set_errhandler(mc, MPI_ERRORS_RETURN);
  for (int i = 0; i < mine; ++i) {
    MPIX_Stream got = MPIX_STREAM_NULL;
    MPIX_Comm_get_stream(mc, i, &got);
    MTEST_CHECK(got == streams[i], "stream %d is 0x%x, not 0x%x", i, (unsigned)got,
                (unsigned)streams[i]);
  }
  exchange(mc, rank, size);
  check_indices(mc, rank, size);
  MPI_Comm none;
  MPIX_Stream_comm_create_multiplex(MPI_COMM_WORLD, 0, NULL, &none);
  MPIX_Stream got = 1;
  MPIX_Comm_get_stream(none, 0, &got);
  MTEST_CHECK(got == MPIX_STREAM_NULL, "a multiplex comm of no stream has 0x%x", (unsigned)got);
  MPI_Comm_free(&none);
  MPIX_Stream many[9] = {MPIX_STREAM_NULL, MPIX_STREAM_NULL, MPIX_STREAM_NULL,
                         MPIX_STREAM_NULL, MPIX_STREAM_NULL, MPIX_STREAM_NULL,
                         MPIX_STREAM_NULL, MPIX_STREAM_NULL, MPIX_STREAM_NULL};
  MPI_Comm wide = MPI_COMM_NULL;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  rc = MPIX_Stream_comm_create_multiplex(MPI_COMM_WORLD, rank == size - 1 ? 9 : 1, many, &wide);
  mtest_expect_arg_error(rc, MPI_ERR_ARG, "MPIX_Stream_comm_create_multiplex", "count");
  MTEST_CHECK(wide == MPI_COMM_NULL, "a refused multiplex communicator was made");
  MPI_Comm_free(&mc);
  for (int i = 0; i < mine; ++i) {
    rc = MPIX_Stream_free(&streams[i]);
    mtest_expect_error(rc, MPI_SUCCESS, "MPIX_Stream_free after MPI_Comm_free", NULL);
  }
  return mtest_finalize();
}
