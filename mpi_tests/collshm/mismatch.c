/* Counts that differ between ranks in the shared-memory collectives (forced by the testlist),
 * through the MPI calls under MPI_ERRORS_RETURN: nobody hangs, the ranks that read a count
 * that differs from theirs report it (MPI_ERR_TRUNCATE when the other side has more,
 * MPI_ERR_ARG when less, "do not match" in the message), the root of a bcast or scatter and
 * the non-roots of a small reduce (they read no count) and, in a large one, the ranks whose
 * leader reads for them (ranks that take turns on one core: coll/shm/core_groups.h) have
 * nothing to report, and the
 * communicator works afterwards (MPI_Allgatherv: a rank whose own receive counts differ from
 * what the others send reports it, and the others finish; MPI_Alltoallv: the receiver of a
 * block whose counts differ reports it; MPI_Gatherv and MPI_Scatterv: the reader of the block
 * whose counts differ, the root or that rank, reports it). Sizes: a flag line, a slot's chunk and
 * several rounds of a small slot. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mtest.h"

static int rank, size;
static int core_member; /* a lower rank takes turns on the same CPUs: it combines for this one */

/* The library's rule, for what each rank is to report: ranks with the same CPU set, narrower
 * than the machine, that outnumber its CPUs share a core group. */
static int in_core_group_behind_another(void) {
  cpu_set_t set;
  unsigned long long mask = 0, *all = malloc(sizeof(unsigned long long) * size);
  CPU_ZERO(&set);
  sched_getaffinity(0, sizeof set, &set);
  for (int c = 0; c < 64; ++c)
    if (CPU_ISSET(c, &set)) mask |= 1ULL << c;
  MPI_Allgather(&mask, 1, MPI_UNSIGNED_LONG_LONG, all, 1, MPI_UNSIGNED_LONG_LONG, MPI_COMM_WORLD);
  int same = 0, lower = 0;
  for (int r = 0; r < size; ++r) {
    if (all[r] != mask) continue;
    ++same;
    if (r < rank) lower = 1;
  }
  free(all);
  int cpus = CPU_COUNT(&set);
  return cpus < sysconf(_SC_NPROCESSORS_ONLN) && same > cpus && lower;
}

static void expect_class(int rc, int cls_want, const char *what, int n) {
  int cls = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  MTEST_CHECK(cls == cls_want, "%s, n %d: class %d, expected %d", what, n, cls, cls_want);
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, text, &len);
    MTEST_CHECK(strstr(text, "do not match") != NULL, "%s: message \"%s\"", what, text);
  }
}

static int failed_anywhere(int rc) {
  int mine = rc != MPI_SUCCESS, any = 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return any;
}

static void still_works(void) {
  int one = 1, sum = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MTEST_CHECK(sum == size, "allreduce afterwards gave %d", sum);
}

static void rooted(int *buf, int n) {
  int mine = rank == 0 ? 2 * n : n; /* the root has more */
  int rc = MPI_Bcast(buf, mine, MPI_INT, 0, MPI_COMM_WORLD);
  expect_class(rc, rank == 0 ? MPI_SUCCESS : MPI_ERR_TRUNCATE, "long bcast", n);
  mine = rank == 0 ? n / 2 : n; /* the root has fewer */
  rc = MPI_Bcast(buf, mine, MPI_INT, 0, MPI_COMM_WORLD);
  expect_class(rc, rank == 0 ? MPI_SUCCESS : MPI_ERR_ARG, "short bcast", n);
  still_works();
  rc = MPI_Scatter(buf, rank == 0 ? 2 * n : 0, MPI_INT, rank == 0 ? MPI_IN_PLACE : buf, n,
                   MPI_INT, 0, MPI_COMM_WORLD);
  expect_class(rc, rank == 0 ? MPI_SUCCESS : MPI_ERR_TRUNCATE, "long scatter", n);
  still_works();
  rc = MPI_Gather(rank == 0 ? MPI_IN_PLACE : buf, rank == 0 ? 0 : n / 2, MPI_INT, buf, n,
                  MPI_INT, 0, MPI_COMM_WORLD);
  expect_class(rc, rank == 0 ? MPI_ERR_ARG : MPI_SUCCESS, "short gather", n);
  still_works();
}

/* MPI_Allgatherv: the last rank sends more than the others' receive counts say; then only the
 * last rank's receive counts differ (it expects more from rank 0), which only it can see. */
static void allgatherv(int *buf, int *out, int n) {
  int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
  for (int r = 0; r < size; ++r) {
    counts[r] = rank == size - 1 && r == size - 1 ? 2 * n : n;
    displs[r] = 2 * n * r;
  }
  int rc = MPI_Allgatherv(buf, rank == size - 1 ? 2 * n : n, MPI_INT, out, counts, displs, MPI_INT,
                          MPI_COMM_WORLD);
  expect_class(rc, rank == size - 1 ? MPI_SUCCESS : MPI_ERR_TRUNCATE, "long allgatherv", n);
  still_works();
  for (int r = 0; r < size; ++r) counts[r] = rank == size - 1 && r == 0 ? 2 * n : n;
  rc = MPI_Allgatherv(buf, n, MPI_INT, out, counts, displs, MPI_INT, MPI_COMM_WORLD);
  expect_class(rc, rank == size - 1 ? MPI_ERR_ARG : MPI_SUCCESS, "allgatherv view", n);
  still_works();
  free(counts);
  free(displs);
}

/* MPI_Alltoallv: the last rank sends rank 0 more than rank 0 expects, then rank 0 expects
 * more than the last rank sends; only rank 0 reads the block, so only it reports. */
static void alltoallv(int *buf, int *out, int n) {
  int *sc = malloc(size * sizeof(int)), *rc_ = malloc(size * sizeof(int)),
      *displs = malloc(size * sizeof(int));
  for (int r = 0; r < size; ++r) {
    sc[r] = rc_[r] = n;
    displs[r] = 2 * n * r;
  }
  if (rank == size - 1) sc[0] = 2 * n;
  int rc = MPI_Alltoallv(buf, sc, displs, MPI_INT, out, rc_, displs, MPI_INT, MPI_COMM_WORLD);
  expect_class(rc, rank == 0 ? MPI_ERR_TRUNCATE : MPI_SUCCESS, "long alltoallv", n);
  still_works();
  sc[0] = n;
  if (rank == 0) rc_[size - 1] = 2 * n;
  rc = MPI_Alltoallv(buf, sc, displs, MPI_INT, out, rc_, displs, MPI_INT, MPI_COMM_WORLD);
  expect_class(rc, rank == 0 ? MPI_ERR_ARG : MPI_SUCCESS, "short alltoallv", n);
  still_works();
  free(sc);
  free(rc_);
  free(displs);
}

/* MPI_Gatherv: the last rank sends more than the root expects, then less; only the root reads
 * the counts. MPI_Scatterv: the root sends the last rank more than it expects, then less;
 * only the last rank reads its count. */
static void rooted_v(int *buf, int *out, int n) {
  int *counts = malloc(size * sizeof(int)), *displs = malloc(size * sizeof(int));
  for (int r = 0; r < size; ++r) {
    counts[r] = n;
    displs[r] = 2 * n * r;
  }
  int last = rank == size - 1;
  int rc =
      MPI_Gatherv(buf, last ? 2 * n : n, MPI_INT, out, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
  expect_class(rc, rank == 0 ? MPI_ERR_TRUNCATE : MPI_SUCCESS, "long gatherv", n);
  still_works();
  rc = MPI_Gatherv(buf, last ? n / 2 : n, MPI_INT, out, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
  expect_class(rc, rank == 0 ? MPI_ERR_ARG : MPI_SUCCESS, "short gatherv", n);
  still_works();
  counts[size - 1] = 2 * n;
  rc = MPI_Scatterv(buf, counts, displs, MPI_INT, out, n, MPI_INT, 0, MPI_COMM_WORLD);
  expect_class(rc, last ? MPI_ERR_TRUNCATE : MPI_SUCCESS, "long scatterv", n);
  still_works();
  counts[size - 1] = n;
  rc =
      MPI_Scatterv(buf, counts, displs, MPI_INT, out, last ? 2 * n : n, MPI_INT, 0, MPI_COMM_WORLD);
  expect_class(rc, last ? MPI_ERR_ARG : MPI_SUCCESS, "short scatterv", n);
  still_works();
  /* The same call on the last rank, now matched by the root: all 2n elements arrive. */
  counts[size - 1] = 2 * n;
  for (int i = 0; rank == 0 && i < 2 * n; ++i) buf[displs[size - 1] + i] = i + 1;
  memset(out, 0, 2 * n * sizeof(int));
  rc = MPI_Scatterv(buf, counts, displs, MPI_INT, out, last ? 2 * n : n, MPI_INT, 0,
                    MPI_COMM_WORLD);
  int whole = rc == MPI_SUCCESS;
  for (int i = 0; last && i < 2 * n; ++i) whole &= out[i] == i + 1;
  MTEST_CHECK(whole, "matched scatterv after a short one, n %d: rank %d", n, rank);
  still_works();
  free(counts);
  free(displs);
}

static void everyone(int *buf, int *out, int n) {
  int mine = rank == size - 1 ? 2 * n : n;
  int rc = MPI_Allreduce(buf, out, mine, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MTEST_CHECK(rc != MPI_SUCCESS, "allreduce n %d: rank %d saw no mismatch", n, rank);
  MTEST_CHECK(failed_anywhere(rc), "allreduce n %d: nobody saw the mismatch", n);
  /* The non-roots of a small reduce check nobody's count (they wait for no one's data), nor
   * do the members of a core group in a large one, nor the other rank of a reduce of two
   * (it streams its operand to the root). */
  rc = MPI_Reduce(buf, out, mine, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MTEST_CHECK(rank != 0 || rc != MPI_SUCCESS, "reduce n %d: the root saw no mismatch", n);
  MTEST_CHECK(n < 40000 || core_member || size == 2 || rc != MPI_SUCCESS,
              "reduce n %d: rank %d saw no mismatch", n, rank);
  if (rc != MPI_SUCCESS) expect_class(rc, rank == size - 1 ? MPI_ERR_ARG : MPI_ERR_TRUNCATE,
                                      "reduce", n);
  rc = MPI_Allgather(buf, mine, MPI_INT, out, mine, MPI_INT, MPI_COMM_WORLD);
  MTEST_CHECK(rc != MPI_SUCCESS, "allgather n %d: rank %d saw no mismatch", n, rank);
  allgatherv(buf, out, n);
  alltoallv(buf, out, n);
  if (n <= 1024) {
    rc = MPI_Alltoall(buf, mine, MPI_INT, out, mine, MPI_INT, MPI_COMM_WORLD);
    MTEST_CHECK(rc != MPI_SUCCESS, "alltoall n %d: rank %d saw no mismatch", n, rank);
  }
  still_works();
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  core_member = in_core_group_behind_another();
  int max = 2 * 40000 * (size + 1);
  int *buf = calloc(max, sizeof(int)), *out = calloc(max, sizeof(int));
  if (size > 1) {
    const int counts[] = {4, 1024, 40000};
    for (int i = 0; i < 3; ++i) {
      rooted(buf, counts[i]);
      rooted_v(buf, out, counts[i]);
      everyone(buf, out, counts[i]);
    }
  }
  free(buf);
  free(out);
  return mtest_finalize();
}
