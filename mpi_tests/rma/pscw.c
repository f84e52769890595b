/* Generalized active-target synchronization (post/start/complete/wait) on a window of
 * MPI_Win_create, with groups made by MPI_Group_incl: rank 0 exposes its window to every rank
 * (itself too), each of which puts its rank into slot[rank] and gets what rank 0 prepared, with
 * MPI_Win_wait closing the exposure, then again with an MPI_Win_test loop; pairs of ranks
 * (a lone last rank pairs with itself) expose to and access each other, exchanging data with
 * MPI_Put and MPI_Accumulate; a ring where each rank only accesses its right neighbour and only
 * exposes to its left one. The data is all there once MPI_Win_wait or MPI_Win_test says so, and
 * the window's group (MPI_Win_get_group) is MPI_IDENT to the communicator's. */
#include <stdlib.h>

#include "mtest.h"

#define N 32 /* ints in each window */
enum { SLOT = 0, SHOWN = 8, PAIR = 16, PAIRACC = 20, RING = 24 };

static int rank, size;
static MPI_Win win;
static int *mem;
static MPI_Group world;

static int value(int r, int i, int round) { return round * 10000 + r * 100 + i; }

static MPI_Group group_of(int n, const int *ranks) {
  MPI_Group g = MPI_GROUP_NULL;
  int rc = MPI_Group_incl(world, n, ranks, &g);
  MTEST_CHECK(rc == MPI_SUCCESS, "MPI_Group_incl failed (%d)", rc);
  return g;
}

/* Waits for the exposure epoch to end, with MPI_Win_wait or an MPI_Win_test loop. */
static void end_exposure(int test) {
  if (!test) {
    MTEST_CHECK(MPI_Win_wait(win) == MPI_SUCCESS, "MPI_Win_wait failed");
    return;
  }
  int flag = 0, calls = 0;
  while (!flag) {
    int rc = MPI_Win_test(win, &flag);
    MTEST_CHECK(rc == MPI_SUCCESS, "MPI_Win_test failed (%d)", rc);
    if (rc != MPI_SUCCESS) break;
    calls++;
  }
  MTEST_CHECK(calls >= 1, "MPI_Win_test was never called");
}

/* Rank 0 exposes to all (a group listing them backwards); every rank puts its rank into
 * slot[rank] and gets SHOWN. */
static void star(int round, int test) {
  int got[4] = {-1, -1, -1, -1}, zero = 0, mine = value(rank, SLOT, round), backwards[8];
  MPI_Group target = group_of(1, &zero), origins = MPI_GROUP_NULL;
  if (rank == 0) {
    for (int r = 0; r < size; ++r) backwards[r] = size - 1 - r;
    origins = group_of(size, backwards);
    for (int i = 0; i < 4; ++i) mem[SHOWN + i] = value(0, SHOWN + i, round);
    MTEST_CHECK(MPI_Win_post(origins, 0, win) == MPI_SUCCESS, "MPI_Win_post failed");
  }
  MTEST_CHECK(MPI_Win_start(target, 0, win) == MPI_SUCCESS, "MPI_Win_start failed");
  MPI_Put(&mine, 1, MPI_INT, 0, SLOT + rank, 1, MPI_INT, win);
  MPI_Get(got, 4, MPI_INT, 0, SHOWN, 4, MPI_INT, win);
  MTEST_CHECK(MPI_Win_complete(win) == MPI_SUCCESS, "MPI_Win_complete failed");
  for (int i = 0; i < 4; ++i)
    MTEST_CHECK(got[i] == value(0, SHOWN + i, round), "round %d: MPI_Get gave %d at %d, want %d",
                round, got[i], i, value(0, SHOWN + i, round));
  if (rank == 0) {
    end_exposure(test);
    for (int r = 0; r < size; ++r)
      MTEST_CHECK(mem[SLOT + r] == value(r, SLOT, round), "round %d: slot %d is %d, want %d", round,
                  r, mem[SLOT + r], value(r, SLOT, round));
    MPI_Group_free(&origins);
  }
  MPI_Group_free(&target);
}

/* Ranks 2k and 2k+1 expose to and access each other. */
static void pairs(void) {
  int partner = (rank ^ 1) < size ? rank ^ 1 : rank;
  int mine[4], add = rank + 1;
  for (int i = 0; i < 4; ++i) mine[i] = value(rank, PAIR + i, 3);
  mem[PAIRACC] = 1000;
  MPI_Group g = group_of(1, &partner);
  MPI_Win_post(g, 0, win);
  MPI_Win_start(g, 0, win);
  MPI_Put(mine, 4, MPI_INT, partner, PAIR, 4, MPI_INT, win);
  MPI_Accumulate(&add, 1, MPI_INT, partner, PAIRACC, 1, MPI_INT, MPI_SUM, win);
  MPI_Win_complete(win);
  MPI_Win_wait(win);
  for (int i = 0; i < 4; ++i)
    MTEST_CHECK(mem[PAIR + i] == value(partner, PAIR + i, 3), "pairs: int %d is %d, want %d",
                PAIR + i, mem[PAIR + i], value(partner, PAIR + i, 3));
  MTEST_CHECK(mem[PAIRACC] == 1000 + partner + 1, "pairs: MPI_Accumulate left %d, want %d",
              mem[PAIRACC], 1000 + partner + 1);
  MPI_Group_free(&g);
}

/* Each rank exposes to its left neighbour only and accesses its right one only. */
static void ring(void) {
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  int mine = value(rank, RING, 4);
  MPI_Group from = group_of(1, &left), to = group_of(1, &right);
  MPI_Win_post(from, MPI_MODE_NOSTORE, win);
  MPI_Win_start(to, 0, win);
  MPI_Put(&mine, 1, MPI_INT, right, RING, 1, MPI_INT, win);
  MPI_Win_complete(win);
  end_exposure(1);
  MTEST_CHECK(mem[RING] == value(left, RING, 4), "ring: got %d, want %d", mem[RING],
              value(left, RING, 4));
  MPI_Group_free(&from);
  MPI_Group_free(&to);
}

#ifdef GPURUN_MPI_H_INCLUDED
/* Rank 1's post for rank 0's second access epoch reaches rank 0 before its first one starts
 * (the token is sent after the post). MPICH 4.0.2 counts the posts a window received, whatever
 * their origin, and its MPI_Win_start waits for the count to equal the group's size exactly, so
 * it hangs here; hence this runs under gpurun only, and the patterns above have barriers
 * between them. */
static void early_post(void) {
  int zero = 0, one = 1, token = 0, mine = value(rank, SLOT, 5);
  if (rank > 1) return;
  MPI_Group self = group_of(1, &rank), other = group_of(1, rank == 0 ? &one : &zero);
  if (rank == 1) {
    MPI_Win_post(other, 0, win);
    MPI_Send(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    MPI_Win_wait(win);
    MTEST_CHECK(mem[SLOT] == value(0, SLOT, 5), "early post: got %d, want %d", mem[SLOT],
                value(0, SLOT, 5));
  } else {
    MPI_Recv(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Win_post(self, 0, win);
    MPI_Win_start(self, 0, win);
    MPI_Put(&mine, 1, MPI_INT, 0, SLOT + 1, 1, MPI_INT, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    MTEST_CHECK(mem[SLOT + 1] == mine, "early post: my own put left %d", mem[SLOT + 1]);
    MPI_Win_start(other, 0, win);
    MPI_Put(&mine, 1, MPI_INT, 1, SLOT, 1, MPI_INT, win);
    MPI_Win_complete(win);
  }
  MPI_Group_free(&self);
  MPI_Group_free(&other);
}
#endif

static void check_group(void) {
  MPI_Group g = MPI_GROUP_NULL;
  int result = -1;
  MTEST_CHECK(MPI_Win_get_group(win, &g) == MPI_SUCCESS, "MPI_Win_get_group failed");
  MPI_Group_compare(g, world, &result);
  MTEST_CHECK(result == MPI_IDENT, "the window's group compares %d to the comm's, want IDENT",
              result);
  MPI_Group_free(&g);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 8) MPI_Abort(MPI_COMM_WORLD, 1); /* slot[] has room for 8 ranks */
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  mem = malloc(N * sizeof(int));
  for (int i = 0; i < N; ++i) mem[i] = -1;
  MPI_Win_create(mem, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  check_group();
  star(1, 0);
  MPI_Barrier(MPI_COMM_WORLD); /* rank 0 checked round 1 before round 2 overwrites it */
  star(2, 1);
  MPI_Barrier(MPI_COMM_WORLD); /* see early_post */
  pairs();
  MPI_Barrier(MPI_COMM_WORLD);
  ring();
#ifdef GPURUN_MPI_H_INCLUDED
  if (size > 1) {
    MPI_Barrier(MPI_COMM_WORLD);
    early_post();
  }
#endif
  MPI_Win_free(&win);
  free(mem);
  MPI_Group_free(&world);
  return mtest_finalize();
}
