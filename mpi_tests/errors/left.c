/* A rank whose calls fail their argument checks under MPI_ERRORS_RETURN, and which then calls
 * MPI_Finalize, leaves nobody waiting for it: every other rank's collective fails, and on at
 * least one rank the message names the rank that left and MPI_Finalize (the others may name
 * the member whose part failed before theirs); a receive from it fails with
 * MPI_ERR_PROC_ABORTED, and so do a probe for it and sends to it (rank 0's, started as it
 * leaves), while the message it sent rank 0 before it left still arrives. The last rank skips; the rooted collectives have it as their root.
 * Each collective runs on a communicator of its own, so that one skipped call does not disturb
 * the next; the first communicator runs nothing before (its shared-memory segment is not set
 * up yet). */
#include <stdio.h>
#include <string.h>

#include "mtest.h"

enum { kCases = 8, kBarrier = 7, kBig = 1 << 16 };

static int buf[4 * kBig], out[4 * kBig];

/* The call of case `i` on `comm`; `type` is MPI_DATATYPE_NULL on the rank that skips (whose
 * barrier gets MPI_COMM_NULL). */
static int call(int i, MPI_Comm comm, MPI_Datatype type, int root) {
  switch (i) {
    case 0: return MPI_Bcast(buf, 1, type, root, comm);          /* nothing set up before */
    case 1: return MPI_Bcast(buf, 1000, type, root, comm);       /* the pml's at -np 2 */
    case 2: return MPI_Bcast(buf, kBig, type, root, comm);       /* pipelined */
    case 3: return MPI_Allreduce(buf, out, 1, type, MPI_SUM, comm);
    case 4: return MPI_Allgather(buf, 1000, type, out, 1000, type, comm);
    case 5: return MPI_Alltoall(buf, kBig / 4, type, out, kBig / 4, type, comm);
    case 6: { /* nonblocking: MPI_Wait reports the collective's own message */
      MPI_Request req;
      int rc = MPI_Ibcast(buf, 1000, type, root, comm, &req);
      return rc != MPI_SUCCESS ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    default: return MPI_Barrier(type == MPI_DATATYPE_NULL ? MPI_COMM_NULL : comm);
  }
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int last = size - 1;
  MPI_Comm comms[kCases], others;
  for (int i = 0; i < kCases; ++i) {
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]);
    if (i > 0) MPI_Barrier(comms[i]);
  }
  MPI_Comm_split(MPI_COMM_WORLD, rank == last ? MPI_UNDEFINED : 0, rank, &others);
  char what[64];
  if (rank == last) {
    for (int i = 0; i < kCases; ++i) {
      snprintf(what, sizeof what, "case %d on the rank that skips", i);
      mtest_expect_error(call(i, comms[i], MPI_DATATYPE_NULL, last),
                         i == kBarrier ? MPI_ERR_COMM : MPI_ERR_TYPE, what,
                         i == kBarrier ? "MPI_COMM_NULL" : "MPI_DATATYPE_NULL");
    }
    int word = 42;
    MPI_Send(&word, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    MPI_Finalize();
    return mtest_errors() != 0;
  }
  if (rank == 0) { /* a rendezvous and a synchronous send, which only a receive completes */
    mtest_expect_error(MPI_Send(out, kBig, MPI_INT, last, 1, MPI_COMM_WORLD),
                       MPI_ERR_PROC_ABORTED, "rendezvous send to the rank that left",
                       "MPI_Finalize");
    mtest_expect_error(MPI_Ssend(out, 1, MPI_INT, last, 2, MPI_COMM_WORLD), MPI_ERR_PROC_ABORTED,
                       "synchronous send to the rank that left", "MPI_Finalize");
  }
  char name[32];
  snprintf(name, sizeof name, "rank %d", last);
  int named[kCases], any_named[kCases];
  for (int i = 0; i < kCases; ++i) {
    int rc = call(i, comms[i], MPI_INT, last), len;
    char text[MPI_MAX_ERROR_STRING] = "";
    if (rc != MPI_SUCCESS) MPI_Error_string(rc, text, &len);
    MTEST_CHECK(rc != MPI_SUCCESS, "case %d: the call succeeded without the rank that left", i);
    named[i] = strstr(text, name) != NULL && strstr(text, "MPI_Finalize") != NULL;
  }
  mtest_expect_error(MPI_Recv(buf, 1, MPI_INT, last, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                     MPI_ERR_PROC_ABORTED, "receive from the rank that left", "MPI_Finalize");
  int flag = 1;
  MPI_Message message;
  mtest_expect_error(MPI_Probe(last, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_PROC_ABORTED,
                     "probe", "MPI_Finalize");
  mtest_expect_error(MPI_Iprobe(last, 0, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE),
                     MPI_ERR_PROC_ABORTED, "iprobe", "MPI_Finalize");
  MTEST_CHECK(flag == 0, "iprobe found a message");
  mtest_expect_error(MPI_Mprobe(last, 0, MPI_COMM_WORLD, &message, MPI_STATUS_IGNORE),
                     MPI_ERR_PROC_ABORTED, "mprobe", "MPI_Finalize");
  if (rank == 0) { /* what it sent before it left */
    int word = 0;
    mtest_expect_error(MPI_Probe(last, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_SUCCESS,
                       "probe of its last message", NULL);
    mtest_expect_error(MPI_Recv(&word, 1, MPI_INT, last, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                       MPI_SUCCESS, "its last message", NULL);
    MTEST_CHECK(word == 42, "its last message carried %d", word);
  }
  /* The others still work together. */
  MPI_Allreduce(named, any_named, kCases, MPI_INT, MPI_MAX, others);
  for (int i = 0; i < kCases; ++i)
    MTEST_CHECK(any_named[i], "case %d: no rank's message names %s and MPI_Finalize", i, name);
  int errors = mtest_errors(), total = 0;
  MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, others);
  if (rank == 0 && total == 0) printf(" No Errors\n");
  fflush(stdout);
  MPI_Finalize();
  return errors != 0;
}
