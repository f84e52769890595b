/* Roots that differ between ranks (an erroneous program: each rank passing its own rank as
 * the root, say). Ranks that each take themselves for the root of a gather or a reduce wait for
 * each other (a gather's always, a reduce's in some algorithms); a bcast or scatter root waits for
 * a receiver that also sends, once its message is too large to go eagerly. Every call must come
 * back on every rank under MPI_ERRORS_RETURN (coll/select_guard.h: waiting ranks compare their
 * roots), with MPI_ERR_ROOT naming the member's root, or MPI_ERR_ARG from the shared-memory
 * algorithms when the member ended first
 * ("another root"); where ranks waited for each other some rank must say so; and the
 * communicator must work afterwards (an allreduce, checked).
 *
 * Two patterns: every rank its own root, and rank 0 at root 0 with the others at root 1 (with
 * 3 ranks or more, ranks 1 and 2 agree and rank 0 does not). Sizes: 8 B (flag lines and eager
 * messages) and 256 KiB per block (rounds through the slots, rendezvous messages). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static int rank, size;
static char *sendbuf, *recvbuf;
static int counts[64], displs[64];

enum { kBcast, kReduce, kGather, kGatherv, kScatter, kScatterv, kCount };
static const char *names[] = {"bcast", "reduce", "gather", "gatherv", "scatter", "scatterv"};
/* Whether ranks that all take themselves for the root wait for each other whatever the
 * algorithm: a gather's root reads blocks that only non-roots write (in shm, a large reduce's
 * roots each gather the parts the other reduced, and both finish). */
static const int roots_wait[] = {0, 0, 1, 1, 0, 0};

static int call(int which, int n, int root) {
  for (int i = 0; i < size; ++i) counts[i] = n, displs[i] = i * n;
  switch (which) {
    case kBcast:
      return MPI_Bcast(recvbuf, n, MPI_BYTE, root, MPI_COMM_WORLD);
    case kReduce:
      return MPI_Reduce(sendbuf, recvbuf, n, MPI_BYTE, MPI_BOR, root, MPI_COMM_WORLD);
    case kGather:
      return MPI_Gather(sendbuf, n, MPI_BYTE, recvbuf, n, MPI_BYTE, root, MPI_COMM_WORLD);
    case kGatherv:
      return MPI_Gatherv(sendbuf, n, MPI_BYTE, recvbuf, counts, displs, MPI_BYTE, root,
                         MPI_COMM_WORLD);
    case kScatter:
      return MPI_Scatter(sendbuf, n, MPI_BYTE, recvbuf, n, MPI_BYTE, root, MPI_COMM_WORLD);
    default:
      return MPI_Scatterv(sendbuf, counts, displs, MPI_BYTE, recvbuf, n, MPI_BYTE, root,
                          MPI_COMM_WORLD);
  }
}

static void mismatch(int which, int n, int own_roots) {
  int root = own_roots ? rank : (rank == 0 ? 0 : 1);
  int rc = call(which, n, root);
  int failed = rc != MPI_SUCCESS, any = 0;
  char what[64];
  snprintf(what, sizeof what, "%s %d B", names[which], n);
  mtest_expect_success_or(rc, MPI_ERR_ROOT, MPI_ERR_ARG, what, "root");
  int x = rank + 1, sum = 0;
  int rc2 = MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MTEST_CHECK(rc2 == MPI_SUCCESS && sum == size * (size + 1) / 2,
              "%s %d B: allreduce afterwards rc %d sum %d", names[which], n, rc2, sum);
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (own_roots && roots_wait[which])
    MTEST_CHECK(any, "%s %d B: no rank reported the roots", names[which], n);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MTEST_CHECK(size <= 64, "at most 64 ranks (%d)", size);
  sendbuf = calloc((size_t)size << 18, 1);
  recvbuf = calloc((size_t)size << 18, 1);
  int warm = 1;
  MPI_Allreduce(MPI_IN_PLACE, &warm, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (int which = 0; which < kCount; ++which)
    for (int own_roots = 1; own_roots >= 0; --own_roots) {
      mismatch(which, 8, own_roots);
      mismatch(which, 256 << 10, own_roots);
    }
  free(sendbuf);
  free(recvbuf);
  return mtest_finalize();
}
