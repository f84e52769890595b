/* Passive-target RMA on counters that rank 0 exposes (MPI_Win_allocate): MPI_Accumulate(MPI_SUM)
 * under MPI_LOCK_SHARED from every rank at once loses no increment (accumulates are atomic per
 * element); MPI_Fetch_and_op(MPI_SUM) hands out each value 0..total-1 exactly once, in
 * increasing order on each rank; MPI_Compare_and_swap makes a spin lock under which a plain
 * MPI_Get + MPI_Put increment loses nothing and no two ranks are ever inside at once;
 * MPI_Win_lock(MPI_LOCK_EXCLUSIVE) epochs that get, increment locally and put lose nothing
 * either. Inside MPI_Win_lock_all, a MPI_Put followed by MPI_Win_flush, MPI_Win_flush_all,
 * MPI_Win_flush_local or MPI_Win_flush_local_all (then a flush) is seen by a MPI_Get of the same
 * place; after the local flushes the origin buffer can be reused at once. An epoch opened with
 * MPI_Win_lock_all(MPI_MODE_NOCHECK) holds no lock (as in the peers, and as OpenCoarrays relies
 * on): another rank's MPI_LOCK_EXCLUSIVE on such a rank is granted while the epoch is open. */
#include <stdlib.h>

#include "mtest.h"

#define ITERS 40
/* Ints after the counters, one per rank for the flush checks: 64 bytes in all, as MPICH 4.0.2
 * misplaces puts into MPI_Win_allocate windows of other sizes (see fence.c). */
#define SLOTS 10

enum { ACC, FOP, MUTEX, GUARDED, INSIDE, EXCL, NCOUNTERS };

static int rank, size;
static MPI_Win win;
static int *mem;

static const char *const names[] = {"accumulated", "fetched", "mutex",
                                    "guarded",     "inside",  "exclusive"};

/* Every counter on rank 0 reads `want` for every rank (through MPI_Get). */
static void expect_counter(int which, int want) {
  MPI_Barrier(MPI_COMM_WORLD);
  int got = -1;
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
  MPI_Get(&got, 1, MPI_INT, 0, which, 1, MPI_INT, win);
  MPI_Win_unlock(0, win);
  MTEST_CHECK(got == want, "the %s counter is %d, want %d", names[which], got, want);
}

static void accumulate(void) {
  int one = 1;
  for (int i = 0; i < ITERS; ++i) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Accumulate(&one, 1, MPI_INT, 0, ACC, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_unlock(0, win);
  }
  expect_counter(ACC, size * ITERS);
}

static int compare_ints(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

static void fetch_and_op(void) {
  int one = 1, mine[ITERS], increasing = 1;
  for (int i = 0; i < ITERS; ++i) {
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    MPI_Fetch_and_op(&one, &mine[i], MPI_INT, 0, FOP, MPI_SUM, win);
    MPI_Win_unlock(0, win);
    if (i > 0) increasing &= mine[i] > mine[i - 1];
  }
  MTEST_CHECK(increasing, "MPI_Fetch_and_op: the values one rank fetched do not increase");
  int total = size * ITERS, *all = malloc(total * sizeof(int)), wrong = 0;
  MPI_Allgather(mine, ITERS, MPI_INT, all, ITERS, MPI_INT, MPI_COMM_WORLD);
  qsort(all, total, sizeof(int), compare_ints);
  for (int i = 0; i < total; ++i) wrong += all[i] != i;
  MTEST_CHECK(wrong == 0, "MPI_Fetch_and_op: %d of the %d values fetched are not 0..%d once each",
              wrong, total, total - 1);
  free(all);
  expect_counter(FOP, total);
}

static void take(int me) {
  int free_ = 0, old = -1;
  do {
    MPI_Compare_and_swap(&me, &free_, &old, MPI_INT, 0, MUTEX, win);
    MPI_Win_flush(0, win);
  } while (old != 0);
}

static void release(int me) {
  int free_ = 0, old = -1;
  MPI_Compare_and_swap(&free_, &me, &old, MPI_INT, 0, MUTEX, win);
  MPI_Win_flush(0, win);
  MTEST_CHECK(old == me, "the mutex held %d when rank %d let go of it", old, rank);
}

/* Under the lock: count the ranks inside, then increment GUARDED with a plain get and put. */
static int critical_section(void) {
  int one = 1, minus = -1, inside = -1, v = -1;
  MPI_Fetch_and_op(&one, &inside, MPI_INT, 0, INSIDE, MPI_SUM, win);
  MPI_Get(&v, 1, MPI_INT, 0, GUARDED, 1, MPI_INT, win);
  MPI_Win_flush(0, win);
  v++;
  MPI_Put(&v, 1, MPI_INT, 0, GUARDED, 1, MPI_INT, win);
  MPI_Fetch_and_op(&minus, &v, MPI_INT, 0, INSIDE, MPI_SUM, win);
  MPI_Win_flush(0, win);
  return inside;
}

static void compare_and_swap_lock(void) {
  int others = 0;
  MPI_Win_lock_all(0, win);
  for (int i = 0; i < ITERS; ++i) {
    take(rank + 1);
    others += critical_section() != 0;
    release(rank + 1);
  }
  MPI_Win_unlock_all(win);
  MTEST_CHECK(others == 0, "MPI_Compare_and_swap lock: %d times another rank was inside", others);
  expect_counter(GUARDED, size * ITERS);
  expect_counter(MUTEX, 0);
}

static void exclusive_lock(void) {
  for (int i = 0; i < ITERS; ++i) {
    int v = -1;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Get(&v, 1, MPI_INT, 0, EXCL, 1, MPI_INT, win);
    MPI_Win_flush(0, win);
    v++;
    MPI_Put(&v, 1, MPI_INT, 0, EXCL, 1, MPI_INT, win);
    MPI_Win_unlock(0, win);
  }
  expect_counter(EXCL, size * ITERS);
}

/* Put v to my slot on the right, complete it by `how`, get it back. */
static void put_flush_get(int round, const char *how) {
  int right = (rank + 1) % size, v = rank * 100 + round, got = -1;
  MPI_Aint slot = NCOUNTERS + rank;
  MPI_Put(&v, 1, MPI_INT, right, slot, 1, MPI_INT, win);
  switch (round) {
    case 0:
      MPI_Win_flush(right, win);
      break;
    case 1:
      MPI_Win_flush_all(win);
      break;
    case 2:
      MPI_Win_flush_local(right, win);
      break;
    default:
      MPI_Win_flush_local_all(win);
      break;
  }
  v = -1; /* the origin buffer is free again after any flush */
  if (round >= 2) MPI_Win_flush(right, win);
  MPI_Get(&got, 1, MPI_INT, right, slot, 1, MPI_INT, win);
  MPI_Win_flush(right, win);
  MTEST_CHECK(got == rank * 100 + round, "MPI_Put then %s then MPI_Get gave %d, want %d", how, got,
              rank * 100 + round);
}

static void flushes(void) {
  static const char *const how[] = {"MPI_Win_flush", "MPI_Win_flush_all", "MPI_Win_flush_local",
                                    "MPI_Win_flush_local_all"};
  MPI_Win_lock_all(0, win);
  for (int round = 0; round < 4; ++round) put_flush_get(round, how[round]);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  int left = (rank + size - 1) % size;
  MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
  MTEST_CHECK(mem[NCOUNTERS + left] == left * 100 + 3, "my slot for rank %d holds %d, want %d",
              left, mem[NCOUNTERS + left], left * 100 + 3);
  MPI_Win_unlock(rank, win);
}

/* Ranks 1.. open a NOCHECK lock_all epoch, tell rank 0 and wait inside it, calling only
 * MPI_Win_sync, until rank 0 has written into them under an exclusive lock (as OpenCoarrays'
 * event wait does). Were the shared locks taken, both would wait; across hosts, a target must
 * answer the lock and the put while it loops on MPI_Win_sync. */
static void nocheck(void) {
  if (size < 2) return;
  MPI_Aint slot = NCOUNTERS + SLOTS - 1;
  if (rank == 0) {
    for (int r = 1; r < size; ++r) {
      int v = 0;
      MPI_Recv(&v, 1, MPI_INT, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* r is inside */
      v = 1000 + r;
      MPI_Win_lock(MPI_LOCK_EXCLUSIVE, r, 0, win);
      MPI_Put(&v, 1, MPI_INT, r, slot, 1, MPI_INT, win);
      MPI_Win_unlock(r, win);
    }
  } else {
    volatile int *seen = &mem[slot];
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    MPI_Send(&rank, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    do {
      MPI_Win_sync(win);
    } while (*seen != 1000 + rank);
    MPI_Win_unlock_all(win);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Aint bytes = (NCOUNTERS + SLOTS) * sizeof(int);
  MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
  for (int i = 0; i < NCOUNTERS + SLOTS; ++i) mem[i] = 0;
  MPI_Win_unlock(rank, win);
  MPI_Barrier(MPI_COMM_WORLD);
  accumulate();
  fetch_and_op();
  compare_and_swap_lock();
  exclusive_lock();
  flushes();
  nocheck();
  MPI_Win_free(&win);
  return mtest_finalize();
}
