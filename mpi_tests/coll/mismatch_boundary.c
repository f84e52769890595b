/* Counts that differ between ranks across the selection table's boundaries: the ranks pick
 * different algorithms (shm on one side of a rule's min_bytes or max_bytes, a pml algorithm on
 * the other; or two pml algorithms when the shared-memory collectives are off, which
 * GPURUN_COLL_SHM_SLOT_SIZE=64T forces), and must still all return. Under MPI_ERRORS_RETURN
 * each call must come back on every rank, some rank must report the mismatch
 * (MPI_ERR_TRUNCATE or MPI_ERR_ARG, with a message saying the counts do not match), and the
 * communicator must work afterwards (an allreduce with the right counts, checked).
 *
 * The sizes straddle the built-in table's boundaries: with 2 ranks on one host, bcast 56 B,
 * allreduce 256 B and 64 K, allgather and alltoall 1 K, reduce 128 K (shm against binomial,
 * recursive doubling, ring, pairwise); without shm and 3 ranks or more, allreduce 64 K
 * (recursive doubling / ring), allgather 8 K (bruck / ring), alltoall 4 K (bruck / pairwise),
 * bcast 128 K (binomial / chain), reduce 1 M (binomial / reduce_scatter_gather).
 *
 * mismatch_skipped.c covers the rest: a rooted call in which the rank running a pml algorithm
 * finishes without receiving anything (the root of a bcast, a non-root of a reduce) while
 * another rank waits in shm, and a mismatch in the very first collective of a communicator,
 * while shm sets its segment up (here, the warm-up sets it up first). */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static int rank, size;
static char *sendbuf, *recvbuf;

enum { kBcast, kAllreduce, kAllgather, kAlltoall, kReduce };
static const char *names[] = {"bcast", "allreduce", "allgather", "alltoall", "reduce"};

static int call(int which, int n) {
  switch (which) {
    case kBcast:
      return MPI_Bcast(recvbuf, n, MPI_BYTE, 0, MPI_COMM_WORLD);
    case kAllreduce:
      return MPI_Allreduce(sendbuf, recvbuf, n, MPI_BYTE, MPI_BOR, MPI_COMM_WORLD);
    case kAllgather:
      return MPI_Allgather(sendbuf, n, MPI_BYTE, recvbuf, n, MPI_BYTE, MPI_COMM_WORLD);
    case kAlltoall:
      return MPI_Alltoall(sendbuf, n, MPI_BYTE, recvbuf, n, MPI_BYTE, MPI_COMM_WORLD);
    default:
      return MPI_Reduce(sendbuf, recvbuf, n, MPI_BYTE, MPI_BOR, 0, MPI_COMM_WORLD);
  }
}

/* One mismatched call: rank 0 passes `mine0` bytes, the others `others`. */
static void mismatch(int which, int mine0, int others) {
  int n = rank == 0 ? mine0 : others;
  int rc = call(which, n);
  int failed = rc != MPI_SUCCESS, any = 0, named = 0, any_named = 0;
  if (failed) {
    int cls;
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, text, &len);
    MTEST_CHECK(cls == MPI_ERR_TRUNCATE || cls == MPI_ERR_ARG, "%s %d/%d: class %d (%s)",
                names[which], mine0, others, cls, text);
    /* Or the error of a member whose own call failed (coll/select_guard.h: kFailed), which
     * some rank's message explains. */
    named = strstr(text, "do not match") != NULL;
    MTEST_CHECK(named || strstr(text, "ended this call") != NULL, "%s %d/%d: message \"%s\"",
                names[which], mine0, others, text);
  }
  /* Everyone is back: the communicator still works, and somebody saw the mismatch. */
  int x = rank + 1, sum = 0;
  int rc2 = MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MTEST_CHECK(rc2 == MPI_SUCCESS && sum == size * (size + 1) / 2,
              "%s %d/%d: allreduce afterwards rc %d sum %d", names[which], mine0, others, rc2, sum);
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MTEST_CHECK(any, "%s %d/%d: no rank reported the mismatch", names[which], mine0, others);
  MPI_Allreduce(&named, &any_named, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MTEST_CHECK(!any || any_named, "%s %d/%d: no rank's message said the counts do not match",
              names[which], mine0, others);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  sendbuf = calloc((size_t)size << 21, 1);
  recvbuf = calloc((size_t)size << 21, 1);
  int warm = 1;
  MPI_Allreduce(MPI_IN_PLACE, &warm, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);

  /* Symmetric collectives, each side of every boundary on rank 0 in turn. */
  static const int sym[][3] = {{kAllreduce, 32, 512},   {kAllreduce, 1024, 128 << 10},
                               {kAllgather, 512, 2048}, {kAllgather, 2048, 16 << 10},
                               {kAlltoall, 512, 2048},  {kAlltoall, 1024, 8192}};
  for (unsigned i = 0; i < sizeof sym / sizeof sym[0]; ++i) {
    mismatch(sym[i][0], sym[i][1], sym[i][2]);
    mismatch(sym[i][0], sym[i][2], sym[i][1]);
  }
  /* Rooted ones in the direction the guard resolves (the others: mismatch_skipped.c). */
  mismatch(kBcast, 32, 128);
  mismatch(kBcast, 64 << 10, 256 << 10);
  mismatch(kBcast, 256 << 10, 64 << 10);
  mismatch(kReduce, 64, 256 << 10);
  mismatch(kReduce, 512 << 10, 2 << 20);
  free(sendbuf);
  free(recvbuf);
  return mtest_finalize();
}
