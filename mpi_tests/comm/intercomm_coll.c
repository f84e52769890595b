/* Blocking collectives on an intercommunicator of the even and the odd ranks of MPI_COMM_WORLD:
 * barrier; bcast from each group (MPI_ROOT, MPI_PROC_NULL, the root's rank on the other side),
 * with a strided datatype; reduce to a root; allreduce (each group gets the other's sum);
 * allgather, gather, scatter and alltoall, each result checked element by element. */
#include <stdlib.h>

#include "mtest.h"

static int rank, size, color, lrank, lsize, rsize;
static MPI_Comm inter;

static int world_of(int c, int r) { return 2 * r + c; }

/* The root's rank in its group, as each side passes it. */
static int root_arg(int root_color, int root) {
  if (color != root_color) return root;
  return lrank == root ? MPI_ROOT : MPI_PROC_NULL;
}

static void bcast_from(int root_color, int root) {
  int buf[10], expect_from_root = root_color == color && lrank == root;
  for (int i = 0; i < 10; ++i) buf[i] = expect_from_root ? 1000 * root_color + i : -1;
  MPI_Datatype every_other;
  MPI_Type_vector(5, 1, 2, MPI_INT, &every_other);
  MPI_Type_commit(&every_other);
  MPI_Bcast(buf, 1, every_other, root_arg(root_color, root), inter);
  MPI_Type_free(&every_other);
  if (color != root_color) {
    for (int i = 0; i < 10; ++i) {
      int want = i % 2 == 0 ? 1000 * root_color + i : -1;
      MTEST_CHECK(buf[i] == want, "bcast from group %d: buf[%d] = %d, want %d", root_color, i,
                  buf[i], want);
    }
  }
}

static int sum_of_world(int c) {
  int s = 0, n = c == 0 ? (size + 1) / 2 : size / 2;
  for (int r = 0; r < n; ++r) s += world_of(c, r);
  return s;
}

static void reductions(void) {
  int mine = rank, got = -1;
  MPI_Allreduce(&mine, &got, 1, MPI_INT, MPI_SUM, inter);
  MTEST_CHECK(got == sum_of_world(1 - color), "allreduce: %d, want %d", got,
              sum_of_world(1 - color));
  got = -1;
  MPI_Reduce(&mine, &got, 1, MPI_INT, MPI_SUM, root_arg(0, 0), inter);
  if (color == 0 && lrank == 0)
    MTEST_CHECK(got == sum_of_world(1), "reduce at the evens' root: %d", got);
  else
    MTEST_CHECK(got == -1, "reduce wrote %d where nothing is received", got);
}

static void gathers(void) {
  int *all = malloc(sizeof(int) * rsize), *sent = malloc(sizeof(int) * rsize);
  for (int r = 0; r < rsize; ++r) all[r] = -1;
  MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, inter);
  for (int r = 0; r < rsize; ++r)
    MTEST_CHECK(all[r] == world_of(1 - color, r), "allgather[%d] = %d", r, all[r]);
  for (int r = 0; r < rsize; ++r) all[r] = -1;
  MPI_Gather(&rank, 1, MPI_INT, all, 1, MPI_INT, root_arg(1, 0), inter);
  if (color == 1 && lrank == 0)
    for (int r = 0; r < rsize; ++r)
      MTEST_CHECK(all[r] == world_of(0, r), "gather at the odds' root [%d] = %d", r, all[r]);
  int one = -1;
  for (int r = 0; r < rsize; ++r) sent[r] = 500 + r;
  MPI_Scatter(sent, 1, MPI_INT, &one, 1, MPI_INT, root_arg(0, 0), inter);
  if (color == 1) MTEST_CHECK(one == 500 + lrank, "scatter gave %d", one);
  for (int r = 0; r < rsize; ++r) sent[r] = rank * 100 + r;
  MPI_Alltoall(sent, 1, MPI_INT, all, 1, MPI_INT, inter);
  for (int r = 0; r < rsize; ++r)
    MTEST_CHECK(all[r] == world_of(1 - color, r) * 100 + lrank, "alltoall[%d] = %d", r, all[r]);
  free(all);
  free(sent);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  color = rank % 2;
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 3, &inter);
  MPI_Comm_rank(inter, &lrank);
  MPI_Comm_size(inter, &lsize);
  MPI_Comm_remote_size(inter, &rsize);
  MPI_Barrier(inter);
  bcast_from(0, 0);
  bcast_from(1, rsize > 0 && color == 0 ? rsize - 1 : lsize - 1);
  reductions();
  gathers();
  MPI_Barrier(inter);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half);
  return mtest_finalize();
}
