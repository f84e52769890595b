/* MPI_Comm_compare, names, MPI_Comm_group and MPI_Comm_test_inter. */
#include <string.h>

#include "mtest.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, result, len;
  char name[MPI_MAX_OBJECT_NAME];
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
  MTEST_CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "world's name '%s' (%d)", name,
              len);
  MPI_Comm_get_name(MPI_COMM_SELF, name, &len);
  MTEST_CHECK(strcmp(name, "MPI_COMM_SELF") == 0, "self's name '%s'", name);
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_get_name(dup, name, &len);
  MTEST_CHECK(len == 0 && name[0] == '\0', "a new communicator's name is '%s'", name);
  MPI_Comm_set_name(dup, "solver");
  MPI_Comm_get_name(dup, name, &len);
  MTEST_CHECK(strcmp(name, "solver") == 0 && len == 6, "name after set: '%s'", name);
  char longname[300];
  memset(longname, 'x', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  MPI_Comm_set_name(dup, longname);
  MPI_Comm_get_name(dup, name, &len);
  MTEST_CHECK(len == MPI_MAX_OBJECT_NAME - 1 && (int)strlen(name) == len,
              "a long name is cut to %d characters, got %d", MPI_MAX_OBJECT_NAME - 1, len);
  MPI_Comm_set_name(MPI_COMM_WORLD, "everyone");
  MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
  MTEST_CHECK(strcmp(name, "everyone") == 0, "world renamed: '%s'", name);
  MPI_Comm dup2;
  MPI_Comm_dup(dup, &dup2);
  MPI_Comm_get_name(dup2, name, &len);
  MTEST_CHECK(len == 0, "a duplicate does not inherit the name: '%s'", name);

  MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &result);
  MTEST_CHECK(result == MPI_IDENT, "world vs world: %d", result);
  MPI_Comm_compare(dup, dup2, &result);
  MTEST_CHECK(result == MPI_CONGRUENT, "dup vs dup: %d", result);
  MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, &result);
  MTEST_CHECK(result == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL), "world vs self: %d", result);
  MPI_Comm rev, half;
  MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &rev);
  MPI_Comm_compare(MPI_COMM_WORLD, rev, &result);
  MTEST_CHECK(result == (size == 1 ? MPI_CONGRUENT : MPI_SIMILAR), "world vs reversed: %d", result);
  MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &half);
  MPI_Comm_compare(MPI_COMM_WORLD, half, &result);
  MTEST_CHECK(result == (size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL), "world vs half: %d", result);

  MPI_Group wg, dg, rg;
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Comm_group(dup, &dg);
  MPI_Comm_group(rev, &rg);
  MPI_Group_compare(wg, dg, &result);
  MTEST_CHECK(result == MPI_IDENT, "groups of world and dup: %d", result);
  MPI_Group_compare(wg, rg, &result);
  MTEST_CHECK(result == (size == 1 ? MPI_IDENT : MPI_SIMILAR), "groups of world and reversed: %d",
              result);
  int grank, gsize;
  MPI_Group_rank(rg, &grank);
  MPI_Group_size(rg, &gsize);
  MTEST_CHECK(grank == size - 1 - rank && gsize == size, "reversed group: rank %d of %d", grank,
              gsize);
  int flag = 1;
  MPI_Comm_test_inter(dup, &flag);
  MTEST_CHECK(flag == 0, "an intracommunicator tests as inter");

  MPI_Group_free(&wg);
  MPI_Group_free(&dg);
  MPI_Group_free(&rg);
  MPI_Comm_free(&rev);
  MPI_Comm_free(&half);
  MPI_Comm_free(&dup2);
  MPI_Comm_free(&dup);
  return mtest_finalize();
}
