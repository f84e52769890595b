/* Shared-memory collectives across the life of communicators (forced by the testlist): each
 * new communicator sets its segment up on its first collective and drops it when freed, so a
 * later communicator that gets the same context id starts afresh; MPI_COMM_SELF; nonblocking
 * allreduces in flight on two communicators at once, overlapped with point-to-point traffic. */
#include <stdint.h>

#include "mtest.h"

static int rank, size;

static void check_sum(MPI_Comm comm, int round) {
  int r, n;
  MPI_Comm_rank(comm, &r);
  MPI_Comm_size(comm, &n);
  long in[3] = {r + round, 1, -r}, out[3];
  MPI_Allreduce(in, out, 3, MPI_LONG, MPI_SUM, comm);
  long want0 = (long)n * (n - 1) / 2 + (long)n * round;
  MTEST_CHECK(out[0] == want0 && out[1] == n && out[2] == -(long)n * (n - 1) / 2,
              "allreduce on a communicator of %d, round %d: %ld %ld %ld", n, round, out[0], out[1],
              out[2]);
}

/* Communicators made and freed in turn: the segments go and come with them. */
static void churn(void) {
  for (int round = 0; round < 20; ++round) {
    MPI_Comm comm;
    if (round % 2)
      MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    else
      MPI_Comm_split(MPI_COMM_WORLD, rank % (round % 3 + 1), rank, &comm);
    check_sum(comm, round);
    MPI_Barrier(comm);
    check_sum(comm, round + 1);
    MPI_Comm_free(&comm);
  }
}

/* Two communicators with allreduces in flight on both, and messages between the ranks while
 * they are. */
static void overlap(void) {
  MPI_Comm a, b;
  MPI_Comm_dup(MPI_COMM_WORLD, &a);
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &b);
  int32_t ina[256], inb[256], outa[256], outb[256], token = rank, got = -1;
  for (int i = 0; i < 256; ++i) {
    ina[i] = rank + i;
    inb[i] = 2 * rank - i;
  }
  MPI_Request req[4];
  MPI_Iallreduce(ina, outa, 256, MPI_INT, MPI_SUM, a, &req[0]);
  MPI_Iallreduce(inb, outb, 256, MPI_INT, MPI_SUM, b, &req[1]);
  MPI_Irecv(&got, 1, MPI_INT, (rank + size - 1) % size, 5, MPI_COMM_WORLD, &req[2]);
  MPI_Isend(&token, 1, MPI_INT, (rank + 1) % size, 5, MPI_COMM_WORLD, &req[3]);
  MPI_Status statuses[4];
  MPI_Waitall(4, req, statuses);
  long bad = 0;
  for (int i = 0; i < 256; ++i) {
    bad += outa[i] != size * (size - 1) / 2 + size * i;
    bad += outb[i] != size * (size - 1) - size * i;
  }
  MTEST_CHECK(bad == 0, "overlapped allreduces: %ld wrong", bad);
  MTEST_CHECK(got == (rank + size - 1) % size, "message during the allreduces: got %d", got);
  MPI_Comm_free(&b);
  MPI_Comm_free(&a);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  check_sum(MPI_COMM_WORLD, 0);
  check_sum(MPI_COMM_SELF, 0);
  churn();
  overlap();
  check_sum(MPI_COMM_WORLD, 1);
  return mtest_finalize();
}
