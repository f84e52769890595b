/* A collective whose algorithm needs scratch memory that one rank cannot have (its address
 * space is capped with RLIMIT_AS for the call): that rank's call ends in MPI_ERR_NO_MEM naming
 * the scratch, and the other ranks, which could allocate theirs and wait for it, end theirs with
 * MPI_ERR_NO_MEM naming it ("ended this call") instead of waiting forever; nothing crashes, and
 * the communicator is usable afterwards. Blocking (MPI_Reduce, MPI_Allreduce in place) and
 * nonblocking (MPI_Iallreduce) calls. Run with algorithms that take scratch on rank 0 (the
 * testlist forces binomial reduce and recursive-doubling allreduce on 4 ranks).
 * Usage: no_memory */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "mtest.h"

enum { kCount = 4 << 20 }; /* ints: 16 MiB, the scratch each call needs */

static int rank, size;
static int *sendbuf, *recvbuf;

/* This process's address space now, in bytes. */
static unsigned long address_space(void) {
  unsigned long pages = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (f != NULL) {
    if (fscanf(f, "%lu", &pages) != 1) pages = 0;
    fclose(f);
  }
  return pages * 4096ul;
}

enum { kReduce, kAllreduce, kIallreduce };
static const char *names[] = {"MPI_Reduce", "MPI_Allreduce", "MPI_Iallreduce"};

static int call(int which) {
  MPI_Request req;
  int rc;
  switch (which) {
    case kReduce:
      return MPI_Reduce(sendbuf, recvbuf, kCount, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    case kAllreduce:
      return MPI_Allreduce(MPI_IN_PLACE, recvbuf, kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    default:
      rc = MPI_Iallreduce(MPI_IN_PLACE, recvbuf, kCount, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
      if (rc != MPI_SUCCESS) return rc;
      return MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
}

/* Runs call `which` with rank 0's address space capped a few MiB above what it uses now. */
static void starved(int which) {
  struct rlimit old, capped;
  getrlimit(RLIMIT_AS, &old);
  capped = old;
  capped.rlim_cur = address_space() + (4ul << 20);
  if (rank == 0) MTEST_CHECK(setrlimit(RLIMIT_AS, &capped) == 0, "setrlimit");
  int rc = call(which);
  if (rank == 0) setrlimit(RLIMIT_AS, &old);
  /* Rank 0 names the scratch; the others a member whose call failed (rank 0, or one that learnt
   * of it first), but for a reduce's ranks whose part does not wait for rank 0 (a leaf). */
  if (rank == 0)
    mtest_expect_error(rc, MPI_ERR_NO_MEM, names[which], "no memory for the scratch");
  else if (which == kReduce)
    mtest_expect_success_or(rc, MPI_ERR_NO_MEM, MPI_ERR_NO_MEM, names[which],
                            "ended this call");
  else
    mtest_expect_error(rc, MPI_ERR_NO_MEM, names[which], "ended this call");
  int x = rank + 1, sum = 0;
  rc = MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MTEST_CHECK(rc == MPI_SUCCESS && sum == size * (size + 1) / 2,
              "%s: allreduce afterwards rc %d sum %d", names[which], rc, sum);
}

/* The same call without a cap completes with the right sum. */
static void fed(int which) {
  for (int i = 0; i < kCount; ++i) sendbuf[i] = recvbuf[i] = rank + 1;
  int rc = call(which);
  MTEST_CHECK(rc == MPI_SUCCESS, "%s uncapped: rc %d", names[which], rc);
  int want = size * (size + 1) / 2;
  if (rc == MPI_SUCCESS && (which != kReduce || rank == 0))
    MTEST_CHECK(recvbuf[0] == want && recvbuf[kCount - 1] == want, "%s uncapped: %d %d, want %d",
                names[which], recvbuf[0], recvbuf[kCount - 1], want);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  sendbuf = malloc(sizeof(int) * kCount);
  recvbuf = malloc(sizeof(int) * kCount);
  memset(sendbuf, 0, sizeof(int) * kCount);
  memset(recvbuf, 0, sizeof(int) * kCount);
  /* Every capped call first: an uncapped one leaves its scratch in gpurun's pool for the next. */
  for (int which = kReduce; which <= kIallreduce; ++which) starved(which);
  for (int which = kReduce; which <= kIallreduce; ++which) fed(which);
  free(sendbuf);
  free(recvbuf);
  return mtest_finalize();
}
