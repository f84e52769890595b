/* Ranks that call the collectives of two communicators they share in different orders (an
 * erroneous program: rank 0 runs a barrier on A and then on B, the others on B and then on A)
 * wait for each other for ever, each in a call the other has not reached. A blocking call that
 * has waited long (or MPI_Wait on a nonblocking one) asks the others about it; a member blocked
 * elsewhere answers with the call it waits in, and a rank that has not reached that call either
 * ends with MPI_ERR_ARG naming both calls (coll/guard_state.h). Communicator creation
 * (MPI_Comm_dup, MPI_Comm_split, MPI_Dist_graph_create) counts as a collective of its parent.
 *
 * Each case runs on two new communicators (no collective ran on them before) or on
 * MPI_COMM_WORLD and a new one. Checked: every call comes back (a hang fails the test by its
 * timeout); every error is MPI_ERR_ARG; some rank's error names the different orders (unless
 * a bcast is one of the calls: its root waits for nobody, and the calls may then meet); an
 * allreduce on each communicator afterwards is right.
 *
 * With DEADLOCK_FATAL=1 set, the communicators keep MPI_ERRORS_ARE_FATAL: the job ends with
 * gpurun's report of the first case (the test list checks the report). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

enum { kBarrier, kAllreduce, kBcast, kIbarrier, kDup, kSplit, kDistGraph, kKinds };
static const char *names[] = {"barrier",          "allreduce", "bcast",
                              "ibarrier+wait",    "comm_dup",  "comm_split",
                              "dist_graph_create"};

static int rank, size, fatal;
static int orders_named;  // some error on this rank named the different orders

static int call(int which, MPI_Comm c) {
  static char buf[64 << 10];
  int x = rank, sum = 0, rc;
  MPI_Comm made = MPI_COMM_NULL;
  switch (which) {
    case kBarrier:
      return MPI_Barrier(c);
    case kAllreduce:
      return MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, c);
    case kBcast:
      return MPI_Bcast(buf, sizeof buf, MPI_BYTE, 0, c);
    case kIbarrier: {
      MPI_Request r;
      rc = MPI_Ibarrier(c, &r);
      return rc == MPI_SUCCESS ? MPI_Wait(&r, MPI_STATUS_IGNORE) : rc;
    }
    case kDup:
      rc = MPI_Comm_dup(c, &made);
      break;
    case kSplit:
      rc = MPI_Comm_split(c, 0, rank, &made);
      break;
    default: {  // a ring: three collectives of the parent at one call
      int next = (rank + 1) % size, degree = 1;
      rc = MPI_Dist_graph_create(c, 1, &rank, &degree, &next, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                 &made);
      break;
    }
  }
  if (rc == MPI_SUCCESS && made != MPI_COMM_NULL) MPI_Comm_free(&made);
  return rc;
}

static void check(int rc, const char *what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = "";
  int len = 0, cls = 0;
  MPI_Error_class(rc, &cls);
  MPI_Error_string(rc, text, &len);
  MTEST_CHECK(cls == MPI_ERR_ARG, "%s: error class %d, not MPI_ERR_ARG: %s", what, cls, text);
  if (strstr(text, "different orders") != NULL) orders_named = 1;
}

static int right_sum(MPI_Comm c) {
  int x = rank + 1, sum = 0;
  int rc = MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, c);
  return rc == MPI_SUCCESS && sum == size * (size + 1) / 2;
}

// Rank 0 runs `first` on A and then `second` on B; the others `second` on B, then `first`
// on A.
static void opposite(int first, int second, int on_world) {
  MPI_Comm a = MPI_COMM_WORLD, b;
  if (!on_world) MPI_Comm_dup(MPI_COMM_WORLD, &a);
  MPI_Comm_dup(MPI_COMM_WORLD, &b);
  if (!fatal) {
    MPI_Comm_set_errhandler(a, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(b, MPI_ERRORS_RETURN);
  }
  char what[128];
  snprintf(what, sizeof what, "%s on A%s, %s on B, in opposite orders on rank 0", names[first],
           on_world ? " (MPI_COMM_WORLD)" : "", names[second]);
  orders_named = 0;
  if (rank == 0) {
    check(call(first, a), what);
    check(call(second, b), what);
  } else {
    check(call(second, b), what);
    check(call(first, a), what);
  }
  int named = 0;
  MPI_Allreduce(&orders_named, &named, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  // A bcast's root waits for nobody: rank 0 may pass it and meet the others.
  if (first != kBcast && second != kBcast)
    MTEST_CHECK(named, "%s: no rank's error named the different orders", what);
  MTEST_CHECK(right_sum(a), "%s: allreduce on A afterwards", what);
  MTEST_CHECK(right_sum(b), "%s: allreduce on B afterwards", what);
  // Freed: the next case's communicators may take their context ids, and no message of the
  // calls that failed here may reach them (pml/pml.cc: remove_comm).
  if (!on_world) MPI_Comm_free(&a);
  MPI_Comm_free(&b);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *f = getenv("DEADLOCK_FATAL");
  fatal = f != NULL && strcmp(f, "1") == 0;
  if (!fatal) MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  for (int first = 0; first < kKinds; ++first)
    for (int second = 0; second < kKinds; ++second) opposite(first, second, first == second);
  return mtest_finalize();
}
