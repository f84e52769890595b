/* MPI_Comm_create_group is collective over the group only: the even ranks create theirs while
 * the odd ranks create another at the same time, with the same tag; a member of neither waits
 * for nobody. */
#include "mtest.h"

static MPI_Status
    statuses_[8]; /* MPI_STATUSES_IGNORE as an array argument upsets gcc -Wstringop-overflow */

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Group world, mine;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  /* My parity's ranks, highest first. */
  int ranks[64], n = 0;
  for (int r = size - 1; r >= 0; --r)
    if (r % 2 == rank % 2) ranks[n++] = r;
  MPI_Group_incl(world, n, ranks, &mine);
  MPI_Comm comm;
  MPI_Comm_create_group(MPI_COMM_WORLD, mine, 42, &comm);
  MTEST_CHECK(comm != MPI_COMM_NULL, "a member got MPI_COMM_NULL");
  int r = -1, s = -1;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &s);
  MTEST_CHECK(s == n && ranks[r] == rank, "rank %d of %d, want world rank %d at it", r, s, rank);
  int got = -1;
  MPI_Request reqs[2];
  MPI_Irecv(&got, 1, MPI_INT, (r + s - 1) % s, 0, comm, &reqs[0]);
  MPI_Isend(&rank, 1, MPI_INT, (r + 1) % s, 0, comm, &reqs[1]);
  MPI_Waitall(2, reqs, statuses_);
  MTEST_CHECK(got == ranks[(r + s - 1) % s], "ring: got %d", got);

  /* Rank 0 alone, twice in a row with the same tag, while the others do nothing. */
  if (rank == 0) {
    MPI_Group self;
    MPI_Comm alone;
    int zero = 0;
    MPI_Group_incl(world, 1, &zero, &self);
    for (int i = 0; i < 2; ++i) {
      MPI_Comm_create_group(MPI_COMM_WORLD, self, 42, &alone);
      int as;
      MPI_Comm_size(alone, &as);
      MTEST_CHECK(as == 1, "alone: size %d", as);
      MPI_Comm_free(&alone);
    }
    MPI_Group_free(&self);
  }
  /* A subgroup of the new communicator, created over it. */
  MPI_Group cg, first_two;
  MPI_Comm_group(comm, &cg);
  int pick[2] = {0, 1}, k = s < 2 ? 1 : 2;
  MPI_Group_incl(cg, k, pick, &first_two);
  if (r < k) {
    MPI_Comm sub;
    MPI_Comm_create_group(comm, first_two, 0, &sub);
    int ss;
    MPI_Comm_size(sub, &ss);
    MTEST_CHECK(ss == k, "subgroup: size %d, want %d", ss, k);
    MPI_Barrier(sub);
    MPI_Comm_free(&sub);
  }
  MPI_Group_free(&first_two);
  MPI_Group_free(&cg);
  MPI_Comm_free(&comm);
  MPI_Group_free(&mine);
  MPI_Group_free(&world);
  return mtest_finalize();
}
