/* Ranks that run different collectives at one call (an erroneous program: rank 0 calls
 * MPI_Barrier where the others call MPI_Comm_dup, say). Ranks that wait for each other in
 * calls that cannot meet must not hang: a rank whose call has waited long tells the others and
 * ends with an error naming both calls (coll/select_guard.h; communicator creation is watched
 * too), and ranks in shared-memory collectives see a count that carries another collective
 * (coll/shm/check.h). Rank 0 runs one call, the others another, for every ordered pair of
 * barrier, bcast, reduce, allreduce, allgather, allgatherv, alltoall, alltoallv, gather,
 * scan, reduce_scatter, MPI_Comm_dup and MPI_Comm_split, at 8 B (flag lines, eager messages)
 * and 256 KiB per block (slot rounds, rendezvous messages).
 *
 * Each pair runs on MPI_COMM_WORLD (calls in step before it) and on a new communicator, where
 * it is the first collective (the shared-memory segment is being set up, and fails to when a
 * member never comes: the pml algorithm that runs instead is abandoned too).
 *
 * Checked: every call comes back (a hang fails the test by its timeout); an error is
 * MPI_ERR_ARG or MPI_ERR_TRUNCATE; where a communicator creation meets any other call some
 * rank reports it (a creation cannot complete without every member's); an allreduce on the
 * communicator afterwards is right; and MPI_Finalize ends (a send of an abandoned call that
 * nobody will receive must not keep it waiting). Some pairs pass unnoticed (a bcast root waits for
 * nobody), as in other MPIs: the test does not require an error there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum {
  kBarrier,
  kBcast,
  kReduce,
  kAllreduce,
  kAllgather,
  kAllgatherv,
  kAlltoall,
  kAlltoallv,
  kGather,
  kScan,
  kReduceScatter,
  kDup,
  kSplit,
  kCount
};
static const char *names[] = {"barrier",        "bcast",    "reduce",    "allreduce", "allgather",
                              "allgatherv",     "alltoall", "alltoallv", "gather",    "scan",
                              "reduce_scatter", "comm_dup", "comm_split"};

static int rank, size;
static MPI_Comm comm;  // where the pair runs
static char *sendbuf, *recvbuf;
static int counts[64], displs[64];

static int creation(int which) { return which == kDup || which == kSplit; }

static int call(int which, int n) {
  MPI_Comm c = comm, made = MPI_COMM_NULL;
  int rc;
  for (int i = 0; i < size; ++i) counts[i] = n, displs[i] = i * n;
  switch (which) {
    case kBarrier:
      return MPI_Barrier(c);
    case kBcast:
      return MPI_Bcast(recvbuf, n, MPI_BYTE, 0, c);
    case kReduce:
      return MPI_Reduce(sendbuf, recvbuf, n, MPI_BYTE, MPI_BOR, 0, c);
    case kAllreduce:
      return MPI_Allreduce(sendbuf, recvbuf, n, MPI_BYTE, MPI_BOR, c);
    case kAllgather:
      return MPI_Allgather(sendbuf, n, MPI_BYTE, recvbuf, n, MPI_BYTE, c);
    case kAllgatherv:
      return MPI_Allgatherv(sendbuf, n, MPI_BYTE, recvbuf, counts, displs, MPI_BYTE, c);
    case kAlltoall:
      return MPI_Alltoall(sendbuf, n, MPI_BYTE, recvbuf, n, MPI_BYTE, c);
    case kAlltoallv:
      return MPI_Alltoallv(sendbuf, counts, displs, MPI_BYTE, recvbuf, counts, displs, MPI_BYTE, c);
    case kGather:
      return MPI_Gather(sendbuf, n, MPI_BYTE, recvbuf, n, MPI_BYTE, 0, c);
    case kScan:
      return MPI_Scan(sendbuf, recvbuf, n, MPI_BYTE, MPI_BOR, c);
    case kReduceScatter:
      return MPI_Reduce_scatter(sendbuf, recvbuf, counts, MPI_BYTE, MPI_BOR, c);
    case kDup:
      rc = MPI_Comm_dup(c, &made);
      break;
    default:
      rc = MPI_Comm_split(c, 0, rank, &made);
      break;
  }
  if (rc == MPI_SUCCESS && made != MPI_COMM_NULL) MPI_Comm_free(&made);
  return rc;
}

static void mismatch(int mine, int theirs, int n, int fresh) {
  comm = MPI_COMM_WORLD;
  if (fresh) {
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  }
  int which = rank == 0 ? mine : theirs;
  int rc = call(which, n);
  char what[128];
  snprintf(what, sizeof what, "%s on rank 0, %s on the others, %d B%s: %s", names[mine],
           names[theirs], n, fresh ? " (new communicator)" : "", names[which]);
  mtest_expect_success_or(rc, MPI_ERR_ARG, MPI_ERR_TRUNCATE, what, NULL);
  int x = rank + 1, sum = 0;
  int rc2 = MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, comm);
  char text[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  if (rc2 != MPI_SUCCESS) MPI_Error_string(rc2, text, &len);
  MTEST_CHECK(rc2 == MPI_SUCCESS && sum == size * (size + 1) / 2,
              "%s: allreduce afterwards rc %d sum %d %s", what, rc2, sum, text);
  int failed = rc != MPI_SUCCESS, any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (creation(mine) || creation(theirs))
    MTEST_CHECK(any, "%s: no rank reported the calls that differ", what);
  if (fresh) MPI_Comm_free(&comm);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MTEST_CHECK(size <= 64, "at most 64 ranks (%d)", size);
  sendbuf = calloc((size_t)size << 18, 1);
  recvbuf = calloc((size_t)size << 18, 1);
  for (int fresh = 0; fresh <= 1; ++fresh)
    for (int mine = 0; mine < kCount; ++mine)
      for (int theirs = 0; theirs < kCount; ++theirs) {
        if (mine == theirs) continue;
        mismatch(mine, theirs, 8, fresh);
        mismatch(mine, theirs, 256 << 10, fresh);
      }
  free(sendbuf);
  free(recvbuf);
  return mtest_finalize();
}
