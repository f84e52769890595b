/* The group calls against what the standard says they give, on MPI_COMM_WORLD's group. */
#include <stdlib.h>

#include "mtest.h"

static int size;

/* Checks that `g` holds exactly the world ranks `want[0..n)`, in that order. */
static void expect_members(MPI_Group g, const int *want, int n, const char *what) {
  MPI_Group world;
  int gsize = -1;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_size(g, &gsize);
  MTEST_CHECK(gsize == n, "%s: size %d, want %d", what, gsize, n);
  if (gsize == n && n > 0) {
    int *idx = malloc(n * sizeof(int)), *got = malloc(n * sizeof(int));
    for (int i = 0; i < n; ++i) idx[i] = i;
    MPI_Group_translate_ranks(g, n, idx, world, got);
    for (int i = 0; i < n; ++i)
      MTEST_CHECK(got[i] == want[i], "%s: member %d is world rank %d, want %d", what, i, got[i],
                  want[i]);
    free(idx);
    free(got);
  }
  MPI_Group_free(&world);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, r, cmp, want[64], n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Group world, g, h, u;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_rank(world, &r);
  MTEST_CHECK(r == rank, "rank in the world group %d", r);

  /* incl: reversed order. */
  for (int i = 0; i < size; ++i) want[i] = size - 1 - i;
  MPI_Group_incl(world, size, want, &g);
  expect_members(g, want, size, "incl reversed");
  MPI_Group_rank(g, &r);
  MTEST_CHECK(r == size - 1 - rank, "rank in reversed group %d", r);
  MPI_Group_compare(world, g, &cmp);
  MTEST_CHECK(cmp == (size == 1 ? MPI_IDENT : MPI_SIMILAR), "compare reversed: %d", cmp);
  MPI_Group_free(&g);
  MTEST_CHECK(g == MPI_GROUP_NULL, "freed group is %#x", (unsigned)g);

  /* excl of the odd ranks keeps the evens in order. */
  int odd[64], nodd = 0;
  n = 0;
  for (int i = 0; i < size; ++i) {
    if (i % 2)
      odd[nodd++] = i;
    else
      want[n++] = i;
  }
  MPI_Group_excl(world, nodd, odd, &g);
  expect_members(g, want, n, "excl odds");
  MPI_Group_rank(g, &r);
  MTEST_CHECK(r == (rank % 2 ? MPI_UNDEFINED : rank / 2), "rank in evens: %d", r);

  /* range_incl: (size-1, 0, -2) then (1, 1, 1) when it is not already there. */
  int ranges[2][3] = {{size - 1, 0, -2}, {0, 0, 1}};
  n = 0;
  for (int i = size - 1; i >= 0; i -= 2) want[n++] = i;
  int nr = 1;
  if ((size - 1) % 2 == 1) { /* 0 is not in the first range */
    want[n++] = 0;
    nr = 2;
  }
  MPI_Group_range_incl(world, nr, ranges, &h);
  expect_members(h, want, n, "range_incl");
  MPI_Group_free(&h);
  /* range_excl of (0, size-1, 3): everything but every third rank. */
  int every_third[1][3] = {{0, size - 1, 3}};
  n = 0;
  for (int i = 0; i < size; ++i)
    if (i % 3) want[n++] = i;
  MPI_Group_range_excl(world, 1, every_third, &h);
  expect_members(h, want, n, "range_excl");
  /* A range whose stride points away from last names nobody. */
  if (size >= 2) {
    int away[1][3] = {{1, 0, 1}};
    MPI_Group_range_incl(world, 1, away, &u);
    MTEST_CHECK(u == MPI_GROUP_EMPTY, "range (1, 0, 1) gave %#x, want MPI_GROUP_EMPTY",
                (unsigned)u);
  }

  /* union, intersection, difference of evens (g) and "not every third" (h). */
  MPI_Group_union(g, h, &u);
  n = 0;
  for (int i = 0; i < size; i += 2) want[n++] = i;
  for (int i = 0; i < size; ++i)
    if (i % 3 && i % 2) want[n++] = i;
  expect_members(u, want, n, "union");
  MPI_Group_free(&u);
  MPI_Group_intersection(g, h, &u);
  n = 0;
  for (int i = 0; i < size; i += 2)
    if (i % 3) want[n++] = i;
  expect_members(u, want, n, "intersection");
  MPI_Group_free(&u);
  MPI_Group_difference(g, h, &u);
  n = 0;
  for (int i = 0; i < size; i += 2)
    if (i % 3 == 0) want[n++] = i;
  expect_members(u, want, n, "difference");
  MPI_Group_free(&u);

  /* Empty results are MPI_GROUP_EMPTY. */
  MPI_Group_difference(world, world, &u);
  MTEST_CHECK(u == MPI_GROUP_EMPTY, "world minus world is %#x", (unsigned)u);
  MPI_Group_incl(world, 0, NULL, &u);
  MTEST_CHECK(u == MPI_GROUP_EMPTY, "incl of nothing is %#x", (unsigned)u);
  MPI_Group_size(MPI_GROUP_EMPTY, &n);
  MPI_Group_rank(MPI_GROUP_EMPTY, &r);
  MTEST_CHECK(n == 0 && r == MPI_UNDEFINED, "empty group: size %d rank %d", n, r);
  MPI_Group_compare(MPI_GROUP_EMPTY, u, &cmp);
  MTEST_CHECK(cmp == MPI_IDENT, "empty vs empty: %d", cmp);
  MPI_Group_union(MPI_GROUP_EMPTY, world, &u);
  MPI_Group_compare(u, world, &cmp);
  MTEST_CHECK(cmp == MPI_IDENT, "empty union world vs world: %d", cmp);
  MPI_Group_free(&u);
  MPI_Group_compare(world, g, &cmp);
  MTEST_CHECK(cmp == (size == 1 ? MPI_IDENT : MPI_UNEQUAL), "world vs evens: %d", cmp);

  /* translate: MPI_PROC_NULL stays, a process not in the target is MPI_UNDEFINED. */
  int from[3] = {MPI_PROC_NULL, 0, size - 1}, to[3];
  MPI_Group_translate_ranks(world, 3, from, g, to);
  MTEST_CHECK(to[0] == MPI_PROC_NULL, "translate MPI_PROC_NULL gave %d", to[0]);
  MTEST_CHECK(to[1] == 0, "translate 0 gave %d", to[1]);
  int last_even = (size - 1) % 2 == 0;
  MTEST_CHECK(to[2] == (last_even ? (size - 1) / 2 : MPI_UNDEFINED), "translate %d gave %d",
              size - 1, to[2]);
  MPI_Group empty = MPI_GROUP_EMPTY;
  MPI_Group_free(&empty);
  MTEST_CHECK(empty == MPI_GROUP_NULL, "freeing MPI_GROUP_EMPTY leaves %#x", (unsigned)empty);
  MPI_Group_size(MPI_GROUP_EMPTY, &n);
  MPI_Group_free(&g);
  MPI_Group_free(&h);
  MPI_Group_free(&world);
  return mtest_finalize();
}
