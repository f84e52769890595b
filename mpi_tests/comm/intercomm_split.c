/* MPI_Comm_split and MPI_Comm_create of an intercommunicator of the even and the odd ranks of
 * MPI_COMM_WORLD. Split: local index s (the rank in its group) passes colour s % 2, or
 * MPI_UNDEFINED at s = 2, and key -rank; the members of one colour on both sides form an
 * intercommunicator whose ranks run by key (descending MPI_COMM_WORLD rank), and a colour that
 * one side lacks (or MPI_UNDEFINED) gives MPI_COMM_NULL. Create: each group picks its members
 * of even local index. Each new intercommunicator is checked for its sizes, this process's
 * rank and, through an allreduce on it, the remote members; then it is used again after a
 * split of the result, and freed. A group that is not part of the local group is refused. */
#include <stdlib.h>

#include "mtest.h"

static int rank, size, color, lrank;

static int world_of(int c, int r) { return 2 * r + c; }
static int count_of(int c) { return (size + 1 - c) / 2; }
static int split_colour(int s) { return s == 2 ? MPI_UNDEFINED : s % 2; }

/* Checks `made`, expected to pair the members of group c whose local index passes `in` with
 * those of the other group that do; `by_key`: ranks run by descending world rank. */
static void check_made(MPI_Comm made, int (*in)(int s, int mine), int mine, int by_key,
                       const char *what) {
  int nlocal = 0, nremote = 0, above = 0, below = 0, remote_sum = 0;
  for (int s = 0; s < count_of(color); ++s) {
    if (!in(s, mine)) continue;
    ++nlocal;
    above += world_of(color, s) > rank;
    below += world_of(color, s) < rank;
  }
  for (int s = 0; s < count_of(1 - color); ++s)
    if (in(s, mine)) ++nremote, remote_sum += world_of(1 - color, s);
  if (!in(lrank, mine) || nremote == 0) {
    MTEST_CHECK(made == MPI_COMM_NULL, "%s: a communicator where MPI_COMM_NULL was due", what);
    return;
  }
  MTEST_CHECK(made != MPI_COMM_NULL, "%s: MPI_COMM_NULL", what);
  if (made == MPI_COMM_NULL) return;
  int inter = 0, n = -1, rn = -1, r = -1, sum = -1;
  MPI_Comm_test_inter(made, &inter);
  MPI_Comm_size(made, &n);
  MPI_Comm_remote_size(made, &rn);
  MPI_Comm_rank(made, &r);
  MTEST_CHECK(inter && n == nlocal && rn == nremote, "%s: inter %d, sizes %d/%d, want %d/%d", what,
              inter, n, rn, nlocal, nremote);
  MTEST_CHECK(r == (by_key ? above : below), "%s: rank %d, want %d", what, r,
              by_key ? above : below);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, made);
  MTEST_CHECK(sum == remote_sum, "%s: the remote members' ranks sum to %d, want %d", what, sum,
              remote_sum);
}

static int same_colour(int s, int mine) {
  return split_colour(s) != MPI_UNDEFINED && split_colour(s) == mine;
}
static int even_index(int s, int mine) {
  (void)mine;
  return s % 2 == 0;
}
static int everyone(int s, int mine) {
  (void)s;
  (void)mine;
  return 1;
}

static void split(MPI_Comm inter) {
  MPI_Comm made = MPI_COMM_NULL;
  int c = split_colour(lrank);
  MPI_Comm_split(inter, c, -rank, &made);
  check_made(made, same_colour, c, 1, "split");
  if (made != MPI_COMM_NULL) MPI_Comm_free(&made);
}

static void create(MPI_Comm inter) {
  MPI_Group local, picked;
  MPI_Comm_group(inter, &local);
  int ranks[64], n = 0;
  for (int s = 0; s < count_of(color); s += 2) ranks[n++] = s;
  MPI_Group_incl(local, n, ranks, &picked);
  MPI_Comm made = MPI_COMM_NULL;
  MPI_Comm_create(inter, picked, &made);
  check_made(made, even_index, 0, 0, "create");
  if (made != MPI_COMM_NULL) {
    /* The result splits again, one colour for all: the same members. */
    MPI_Comm again = MPI_COMM_NULL;
    int r = -1;
    MPI_Comm_rank(made, &r);
    MPI_Comm_split(made, 0, r, &again);
    MTEST_CHECK(again != MPI_COMM_NULL, "split of the created communicator: MPI_COMM_NULL");
    if (again != MPI_COMM_NULL) {
      int sum = -1, want = 0;
      for (int s = 0; s < count_of(1 - color); s += 2) want += world_of(1 - color, s);
      MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, again);
      MTEST_CHECK(sum == want, "split of the created: remote sum %d, want %d", sum, want);
      MPI_Comm_free(&again);
    }
    MPI_Comm_free(&made);
  }
  MPI_Group_free(&picked);
  /* Everyone again, then a group holding a remote member: refused. */
  MPI_Comm_create(inter, local, &made);
  check_made(made, everyone, 0, 0, "create of the whole local group");
  if (made != MPI_COMM_NULL) MPI_Comm_free(&made);
  MPI_Group remote;
  MPI_Comm_remote_group(inter, &remote);
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  int rc = MPI_Comm_create(inter, remote, &made);
  mtest_expect_error(rc, MPI_ERR_GROUP, "MPI_Comm_create with the remote group", "local group");
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_ARE_FATAL);
  MPI_Group_free(&remote);
  MPI_Group_free(&local);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2 || size > 128) {
    MTEST_CHECK(0, "needs 2 to 128 processes, not %d", size);
    return mtest_finalize();
  }
  color = rank % 2;
  MPI_Comm half, inter;
  MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 5, &inter);
  MPI_Comm_rank(inter, &lrank);
  split(inter);
  create(inter);
  split(inter);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  return mtest_finalize();
}
