/* Counts that differ between ranks where one rank's algorithm skips the shared-memory one
 * altogether (coll/select_guard.h, coll/shm/check.h), the cases mismatch_boundary leaves out:
 *  - established: a rooted call in which the rank that runs a pml algorithm finishes without
 *    receiving anything while another waits in shm: the root of a bcast whose count selects
 *    binomial (128 B) while the other passes 32 B (shm); the non-root of a reduce whose count
 *    selects binomial (64 B) while the root passes 256 K (shm). The shm rank must see that
 *    the other's step counter passed the call without a count for it;
 *  - first: a mismatch in the first collective of a fresh communicator, while shm sets its
 *    segment up (the setup's messages must not meet the other rank's algorithm): the cases
 *    above, plus bcast 256 K (shm) against 64 K (binomial) and allreduce 32 B against 512 B,
 *    where the pml rank joins shm.
 * Every call must come back on every rank under MPI_ERRORS_RETURN, some rank must report the
 * mismatch (MPI_ERR_TRUNCATE or MPI_ERR_ARG, "do not match"), and an allreduce on the same
 * communicator must then be right. With 3 ranks or shm off the ranks pick one algorithm and
 * the algorithms' own checks answer: the test must pass there too.
 * Usage: mismatch_skipped [case]: runs one case (0-based, in the order below) or all. */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static int rank, size;
static char *sendbuf, *recvbuf;

enum { kBcast, kAllreduce, kReduce };
static const char *names[] = {"bcast", "allreduce", "reduce"};

static int call(int which, int n, MPI_Comm comm) {
  switch (which) {
    case kBcast:
      return MPI_Bcast(recvbuf, n, MPI_BYTE, 0, comm);
    case kAllreduce:
      return MPI_Allreduce(sendbuf, recvbuf, n, MPI_BYTE, MPI_BOR, comm);
    default:
      return MPI_Reduce(sendbuf, recvbuf, n, MPI_BYTE, MPI_BOR, 0, comm);
  }
}

/* One mismatched call on `comm`: rank 0 (the root) passes `mine0` bytes, the others `others`. */
static void mismatch(int which, int mine0, int others, MPI_Comm comm, const char *where) {
  int n = rank == 0 ? mine0 : others;
  int rc = call(which, n, comm);
  int failed = rc != MPI_SUCCESS, any = 0, named = 0, any_named = 0;
  if (failed) {
    int cls, len;
    char text[MPI_MAX_ERROR_STRING];
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, text, &len);
    MTEST_CHECK(cls == MPI_ERR_TRUNCATE || cls == MPI_ERR_ARG, "%s %s %d/%d: class %d (%s)", where,
                names[which], mine0, others, cls, text);
    /* Or the error of a member whose own call failed (coll/select_guard.h: kFailed), which
     * some rank's message explains. */
    named = strstr(text, "do not match") != NULL;
    MTEST_CHECK(named || strstr(text, "ended this call") != NULL, "%s %s %d/%d: message \"%s\"",
                where, names[which], mine0, others, text);
  }
  int x = rank + 1, sum = 0;
  int rc2 = MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, comm);
  MTEST_CHECK(rc2 == MPI_SUCCESS && sum == size * (size + 1) / 2,
              "%s %s %d/%d: allreduce afterwards rc %d sum %d", where, names[which], mine0, others,
              rc2, sum);
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, comm);
  MTEST_CHECK(any, "%s %s %d/%d: no rank reported the mismatch", where, names[which], mine0,
              others);
  MPI_Allreduce(&named, &any_named, 1, MPI_INT, MPI_MAX, comm);
  MTEST_CHECK(!any || any_named, "%s %s %d/%d: no rank's message said the counts do not match",
              where, names[which], mine0, others);
}

static const int established[][3] = {{kBcast, 128, 32}, {kReduce, 256 << 10, 64}};
static const int first[][3] = {{kBcast, 128, 32},
                               {kReduce, 256 << 10, 64},
                               {kBcast, 256 << 10, 64 << 10},
                               {kAllreduce, 32, 512}};
enum { kEstablished = sizeof established / sizeof established[0] };
enum { kCases = kEstablished + sizeof first / sizeof first[0] };

static void run_case(int c) {
  if (c < kEstablished) {
    mismatch(established[c][0], established[c][1], established[c][2], MPI_COMM_WORLD,
             "established");
    return;
  }
  const int *k = first[c - kEstablished];
  MPI_Comm fresh;
  MPI_Comm_dup(MPI_COMM_WORLD, &fresh);
  MPI_Comm_set_errhandler(fresh, MPI_ERRORS_RETURN);
  mismatch(k[0], k[1], k[2], fresh, "first");
  MPI_Comm_free(&fresh);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  sendbuf = calloc((size_t)1 << 20, 1);
  recvbuf = calloc((size_t)1 << 20, 1);
  int warm = 1; /* MPI_COMM_WORLD's segment is set up before its cases */
  MPI_Allreduce(MPI_IN_PLACE, &warm, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
  int only = argc > 1 ? atoi(argv[1]) : -1;
  for (int c = 0; c < kCases; ++c)
    if (only < 0 || only == c) run_case(c);
  free(sendbuf);
  free(recvbuf);
  return mtest_finalize();
}
