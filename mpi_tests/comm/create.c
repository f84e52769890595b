/* MPI_Comm_create over the parent: members of the group get a communicator ordered as the
 * group, the others MPI_COMM_NULL; with disjoint groups (MPI-2.2) each process gets the
 * communicator of its own group. */
#include "mtest.h"

static MPI_Status
    statuses_[8]; /* MPI_STATUSES_IGNORE as an array argument upsets gcc -Wstringop-overflow */

static void check_ring(MPI_Comm comm, const int *world_of, const char *what) {
  int r, n, got = -1, me;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &n);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Request reqs[2];
  MPI_Irecv(&got, 1, MPI_INT, (r + n - 1) % n, 1, comm, &reqs[0]);
  MPI_Isend(&me, 1, MPI_INT, (r + 1) % n, 1, comm, &reqs[1]);
  MPI_Waitall(2, reqs, statuses_);
  MTEST_CHECK(got == world_of[(r + n - 1) % n], "%s: ring got world rank %d, want %d", what, got,
              world_of[(r + n - 1) % n]);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Group world, evens, odds;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  /* The even ranks, highest first. */
  int ranks[64], n = 0;
  for (int r = size - 1; r >= 0; --r)
    if (r % 2 == 0) ranks[n++] = r;
  MPI_Group_incl(world, n, ranks, &evens);
  MPI_Group_excl(world, n, ranks, &odds);

  MPI_Comm comm;
  MPI_Comm_create(MPI_COMM_WORLD, evens, &comm);
  if (rank % 2) {
    MTEST_CHECK(comm == MPI_COMM_NULL, "an odd rank got a communicator");
  } else {
    int r;
    MPI_Comm_rank(comm, &r);
    MTEST_CHECK(ranks[r] == rank, "rank %d in the new communicator is world rank %d", r, ranks[r]);
    check_ring(comm, ranks, "evens");
    MPI_Comm_free(&comm);
  }

  /* Disjoint groups: evens and odds at once. */
  int odd_ranks[64], m = 0;
  for (int r = 0; r < size; ++r)
    if (r % 2) odd_ranks[m++] = r;
  MPI_Comm_create(MPI_COMM_WORLD, rank % 2 ? odds : evens, &comm);
  MTEST_CHECK(comm != MPI_COMM_NULL, "disjoint groups: no communicator");
  if (comm != MPI_COMM_NULL) {
    check_ring(comm, rank % 2 ? odd_ranks : ranks, rank % 2 ? "odds" : "evens (disjoint)");
    MPI_Comm_free(&comm);
  }

  /* The whole group: congruent with the parent. */
  MPI_Comm all;
  int cmp;
  MPI_Comm_create(MPI_COMM_WORLD, world, &all);
  MPI_Comm_compare(all, MPI_COMM_WORLD, &cmp);
  MTEST_CHECK(cmp == MPI_CONGRUENT, "create(world group): compare %d", cmp);
  MPI_Comm_free(&all);
  /* MPI_GROUP_EMPTY: nobody gets a communicator. */
  MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &all);
  MTEST_CHECK(all == MPI_COMM_NULL, "create(MPI_GROUP_EMPTY) gave a communicator");

  MPI_Group_free(&evens);
  MPI_Group_free(&odds);
  MPI_Group_free(&world);
  return mtest_finalize();
}
