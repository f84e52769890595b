/* MPI_Comm_split: colours group the ranks, keys order them (ties by rank in the parent),
 * MPI_UNDEFINED gives MPI_COMM_NULL; the new communicators carry messages between the right
 * processes, and can be split again. */
#include <stdlib.h>

#include "mtest.h"

static MPI_Status
    statuses_[8]; /* MPI_STATUSES_IGNORE as an array argument upsets gcc -Wstringop-overflow */

/* The parent ranks of colour `color`, in the order keys give: key = -rank (reversed), except
 * that every third rank uses key 0 (ties keep parent order). */
static int key_of(int rank) { return rank % 3 == 0 ? 0 : -rank; }
static int color_of(int rank) { return rank % 4 == 3 ? MPI_UNDEFINED : rank % 2; }

static int expected_members(int size, int color, int *members) {
  int n = 0;
  for (int r = 0; r < size; ++r)
    if (color_of(r) == color) members[n++] = r;
  /* insertion sort by (key, rank) */
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0; --j) {
      int a = members[j - 1], b = members[j];
      if (key_of(a) > key_of(b) || (key_of(a) == key_of(b) && a > b)) {
        members[j - 1] = b;
        members[j] = a;
      }
    }
  return n;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm sub;
  MPI_Comm_split(MPI_COMM_WORLD, color_of(rank), key_of(rank), &sub);
  if (color_of(rank) == MPI_UNDEFINED) {
    MTEST_CHECK(sub == MPI_COMM_NULL, "MPI_UNDEFINED gave %#x", (unsigned)sub);
  } else {
    int *members = malloc(sizeof(int) * size);
    int n = expected_members(size, color_of(rank), members);
    int srank, ssize;
    MPI_Comm_rank(sub, &srank);
    MPI_Comm_size(sub, &ssize);
    MTEST_CHECK(ssize == n, "size %d, want %d", ssize, n);
    MTEST_CHECK(srank >= 0 && srank < n && members[srank] == rank,
                "rank %d in the split is not where the keys put world rank %d", srank, rank);
    /* A ring on the new communicator: each receives the world rank of its predecessor. */
    int next = (srank + 1) % ssize, prev = (srank + ssize - 1) % ssize, got = -1;
    MPI_Request reqs[2];
    MPI_Irecv(&got, 1, MPI_INT, prev, 3, sub, &reqs[0]);
    MPI_Isend(&rank, 1, MPI_INT, next, 3, sub, &reqs[1]);
    MPI_Waitall(2, reqs, statuses_);
    MTEST_CHECK(got == members[prev], "ring: got world rank %d, want %d", got, members[prev]);
    /* Split again in halves by rank in the split, ordered by world rank. */
    MPI_Comm half;
    MPI_Comm_split(sub, srank < ssize / 2, rank, &half);
    int hsize;
    MPI_Comm_size(half, &hsize);
    int want = srank < ssize / 2 ? ssize / 2 : ssize - ssize / 2;
    MTEST_CHECK(hsize == want, "half: size %d, want %d", hsize, want);
    MPI_Barrier(half);
    MPI_Comm_free(&half);
    MPI_Comm_free(&sub);
    free(members);
  }
  /* Everybody in one colour, all keys equal: the parent's order. */
  MPI_Comm same;
  MPI_Comm_split(MPI_COMM_WORLD, 5, 0, &same);
  int r2, cmp;
  MPI_Comm_rank(same, &r2);
  MTEST_CHECK(r2 == rank, "one colour, equal keys: rank %d, want %d", r2, rank);
  MPI_Comm_compare(same, MPI_COMM_WORLD, &cmp);
  MTEST_CHECK(cmp == MPI_CONGRUENT, "compare = %d, want MPI_CONGRUENT", cmp);
  MPI_Comm_free(&same);
  /* Reversed keys: the same members in another order. */
  MPI_Comm rev;
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
  MPI_Comm_rank(rev, &r2);
  MTEST_CHECK(r2 == size - 1 - rank, "reversed: rank %d, want %d", r2, size - 1 - rank);
  MPI_Comm_compare(rev, MPI_COMM_WORLD, &cmp);
  MTEST_CHECK(cmp == (size > 1 ? MPI_SIMILAR : MPI_CONGRUENT), "compare = %d", cmp);
  MPI_Comm_free(&rev);
  return mtest_finalize();
}
