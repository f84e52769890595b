/* Bad arguments to the group calls, under MPI_ERRORS_RETURN. */
#include <stdio.h>
#include <string.h>

#include "mtest.h"

static int rank;

static void expect(int rc, int want_class, const char *call, const char *text) {
  int cls = -1, len = 0;
  char msg[MPI_MAX_ERROR_STRING];
  MTEST_CHECK(rc != MPI_SUCCESS, "%s succeeded; want class %d", call, want_class);
  if (rc == MPI_SUCCESS) return;
  MPI_Error_class(rc, &cls);
  MTEST_CHECK(cls == want_class, "%s: class %d, want %d", call, cls, want_class);
  MPI_Error_string(rc, msg, &len);
  MTEST_CHECK(strstr(msg, call) && strstr(msg, text), "message '%s' should name %s and '%s'", msg,
              call, text);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size, v;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Group world, g = MPI_GROUP_NULL;
  MPI_Comm_group(MPI_COMM_WORLD, &world);

  int out_of_range[1] = {size};
  expect(MPI_Group_incl(world, 1, out_of_range, &g), MPI_ERR_RANK, "MPI_Group_incl", "ranks[0]");
  int twice[2] = {0, 0};
  expect(MPI_Group_incl(world, 2, twice, &g), MPI_ERR_RANK, "MPI_Group_incl", "again");
  expect(MPI_Group_excl(world, 2, twice, &g), MPI_ERR_RANK, "MPI_Group_excl", "again");
  int negative[1] = {-1};
  expect(MPI_Group_excl(world, 1, negative, &g), MPI_ERR_RANK, "MPI_Group_excl", "ranks[0]");
  expect(MPI_Group_incl(world, -1, NULL, &g), MPI_ERR_ARG, "MPI_Group_incl", "n");
  expect(MPI_Group_incl(world, 1, NULL, &g), MPI_ERR_ARG, "MPI_Group_incl", "ranks");
  int stride0[1][3] = {{0, 0, 0}};
  expect(MPI_Group_range_incl(world, 1, stride0, &g), MPI_ERR_ARG, "MPI_Group_range_incl",
         "stride 0");
  int outside[1][3] = {{0, size, 1}};
  expect(MPI_Group_range_excl(world, 1, outside, &g), MPI_ERR_RANK, "MPI_Group_range_excl",
         "ranges[0]");
  int overlap[2][3] = {{0, 0, 1}, {0, 0, 1}};
  expect(MPI_Group_range_incl(world, 2, overlap, &g), MPI_ERR_RANK, "MPI_Group_range_incl",
         "ranges[1]");
  expect(MPI_Group_size(MPI_GROUP_NULL, &v), MPI_ERR_GROUP, "MPI_Group_size", "MPI_GROUP_NULL");
  expect(MPI_Group_rank(world, NULL), MPI_ERR_ARG, "MPI_Group_rank", "rank");
  expect(MPI_Group_union(world, MPI_GROUP_NULL, &g), MPI_ERR_GROUP, "MPI_Group_union", "group2");
  expect(MPI_Group_compare((MPI_Group)0x1234, world, &v), MPI_ERR_GROUP, "MPI_Group_compare",
         "group1");
  int bad[2] = {0, size + 3}, res[2];
  expect(MPI_Group_translate_ranks(world, 2, bad, world, res), MPI_ERR_RANK,
         "MPI_Group_translate_ranks", "ranks1[1]");
  expect(MPI_Group_free(NULL), MPI_ERR_ARG, "MPI_Group_free", "group");

  /* A freed group handle stays invalid, also once its slot is reused. */
  MPI_Group copy, stale;
  MPI_Comm_group(MPI_COMM_WORLD, &copy);
  stale = copy;
  MPI_Group_free(&copy);
  expect(MPI_Group_size(stale, &v), MPI_ERR_GROUP, "MPI_Group_size", "was freed");
  expect(MPI_Group_free(&stale), MPI_ERR_GROUP, "MPI_Group_free", "group");
  for (int i = 0; i < 3; ++i) {
    MPI_Comm_group(MPI_COMM_WORLD, &copy);
    expect(MPI_Group_rank(stale, &v), MPI_ERR_GROUP, "MPI_Group_rank", "group");
    MPI_Group_free(&copy);
  }
  MPI_Group_free(&world);
  return mtest_finalize();
}
