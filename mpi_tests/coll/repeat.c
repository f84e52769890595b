/* Blocking collectives repeated with the same arguments (a loop), which skip the argument checks
 * and start the last call's operation again: every repeat moves the buffers' new contents; a
 * datatype or communicator handle freed since is refused or, created anew under the same handle
 * value, used as the new object; a repeat after a call that failed its checks runs; calls with
 * other arguments in between (another count, another root, another communicator) still give
 * their own results; the v forms repeated over arrays whose values change follow the values; and
 * two threads repeating calls on two communicators at once each get theirs.
 */
#include <stdlib.h>

#include "mtest.h"

enum { kRounds = 3, kN = 5 };
static int rank, size;

static int val(int round, int r, int i) { return round * 1000 + r * 100 + i + 1; }

/* Allreduce, reduce, scan and exscan of kN ints (sum), three times over the same buffers. */
static void reductions(void) {
  int s[kN], r[kN];
  for (int round = 0; round < kRounds; ++round) {
    for (int i = 0; i < kN; ++i) s[i] = val(round, rank, i);
    MPI_Allreduce(s, r, kN, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < kN; ++i) {
      int want = 0;
      for (int q = 0; q < size; ++q) want += val(round, q, i);
      MTEST_CHECK(r[i] == want, "allreduce round %d [%d] = %d, want %d", round, i, r[i], want);
    }
    for (int i = 0; i < kN; ++i) r[i] = -1;
    MPI_Reduce(s, r, kN, MPI_INT, MPI_SUM, size - 1, MPI_COMM_WORLD);
    for (int i = 0; i < kN && rank == size - 1; ++i) {
      int want = 0;
      for (int q = 0; q < size; ++q) want += val(round, q, i);
      MTEST_CHECK(r[i] == want, "reduce round %d [%d] = %d, want %d", round, i, r[i], want);
    }
    MPI_Scan(s, r, kN, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < kN; ++i) {
      int want = 0;
      for (int q = 0; q <= rank; ++q) want += val(round, q, i);
      MTEST_CHECK(r[i] == want, "scan round %d [%d] = %d, want %d", round, i, r[i], want);
    }
    MPI_Exscan(s, r, kN, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < kN && rank > 0; ++i) {
      int want = 0;
      for (int q = 0; q < rank; ++q) want += val(round, q, i);
      MTEST_CHECK(r[i] == want, "exscan round %d [%d] = %d, want %d", round, i, r[i], want);
    }
  }
}

/* Bcast, gather, scatter, allgather, alltoall and reduce_scatter_block of kN ints per rank. */
static void movers(void) {
  int *s = malloc(sizeof(int) * kN * size), *r = malloc(sizeof(int) * kN * size);
  for (int round = 0; round < kRounds; ++round) {
    int root = round % size;
    for (int i = 0; i < kN * size; ++i) s[i] = val(round, rank, i);
    MPI_Bcast(s, kN, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < kN; ++i)
      MTEST_CHECK(s[i] == val(round, 0, i), "bcast round %d [%d] = %d", round, i, s[i]);
    for (int i = 0; i < kN * size; ++i) s[i] = val(round, rank, i);
    MPI_Allgather(s, kN, MPI_INT, r, kN, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < kN * size; ++i)
      MTEST_CHECK(r[i] == val(round, i / kN, i % kN), "allgather round %d [%d] = %d", round, i,
                  r[i]);
    MPI_Alltoall(s, kN, MPI_INT, r, kN, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < kN * size; ++i)
      MTEST_CHECK(r[i] == val(round, i / kN, rank * kN + i % kN), "alltoall round %d [%d] = %d",
                  round, i, r[i]);
    MPI_Gather(s, kN, MPI_INT, r, kN, MPI_INT, root, MPI_COMM_WORLD);
    for (int i = 0; i < kN * size && rank == root; ++i)
      MTEST_CHECK(r[i] == val(round, i / kN, i % kN), "gather round %d [%d] = %d", round, i, r[i]);
    MPI_Scatter(s, kN, MPI_INT, r, kN, MPI_INT, root, MPI_COMM_WORLD);
    for (int i = 0; i < kN; ++i)
      MTEST_CHECK(r[i] == val(round, root, rank * kN + i), "scatter round %d [%d] = %d", round, i,
                  r[i]);
    MPI_Reduce_scatter_block(s, r, kN, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < kN; ++i) {
      int want = 0;
      for (int q = 0; q < size; ++q) want += val(round, q, rank * kN + i);
      MTEST_CHECK(r[i] == want, "reduce_scatter_block round %d [%d] = %d, want %d", round, i, r[i],
                  want);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  free(s);
  free(r);
}

/* Allgathers one element of `type` (`ints` ints, contiguous) from each rank, always from and
 * into the same buffers (so that the call repeats the last one); returns the call's code. */
static int allgather_ints(MPI_Datatype type, int ints, int round, const char *what) {
  static int s[8], r[64];
  for (int i = 0; i < 8; ++i) s[i] = val(round, rank, i);
  for (int i = 0; i < 64; ++i) r[i] = -1;
  int rc = MPI_Allgather(s, 1, type, r, 1, type, MPI_COMM_WORLD);
  for (int q = 0; q < size && size * ints <= 64 && rc == MPI_SUCCESS; ++q)
    for (int i = 0; i < ints; ++i)
      MTEST_CHECK(r[q * ints + i] == val(round, q, i), "%s: block %d int %d = %d", what, q, i,
                  r[q * ints + i]);
  return rc;
}

/* A freed datatype's handle is refused, even by a call that repeats the last one; created anew
 * under the same handle value with another layout, it moves the new layout. */
static void freed_type(void) {
  MPI_Datatype two, again;
  MPI_Type_contiguous(2, MPI_INT, &two);
  MPI_Type_commit(&two);
  for (int round = 0; round < 2; ++round) {
    int rc = allgather_ints(two, 2, round, "pair");
    MTEST_CHECK(rc == MPI_SUCCESS, "allgather of pairs: rc %d", rc);
  }
  MPI_Datatype stale = two;
  MPI_Type_free(&two);
  int rc = allgather_ints(stale, 2, 2, "freed pair");
  mtest_expect_error(rc, MPI_ERR_TYPE, "allgather with a freed datatype", "sendtype");
  /* Create and free types until one gets the freed one's handle value. */
  int tries = 0;
  for (;;) {
    MPI_Type_contiguous(4, MPI_INT, &again);
    MPI_Type_commit(&again);
    if (again == stale || ++tries > 4096) break;
    MPI_Type_free(&again);
  }
  MTEST_CHECK(again == stale, "no new datatype got the freed handle 0x%x in %d tries",
              (unsigned)stale, tries);
  rc = allgather_ints(again, 4, 3, "four under the freed pair's handle");
  MTEST_CHECK(rc == MPI_SUCCESS, "allgather of fours: rc %d", rc);
  MPI_Type_free(&again);
}

/* A communicator freed after a repeated allreduce, and one of another size (ranks of one
 * parity) created under the same handle value: the same call runs on the new communicator. */
static void freed_comm(void) {
  static int one = 1, sum = 0;
  MPI_Comm dup, stale;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  for (int i = 0; i < 2; ++i) MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup);
  MTEST_CHECK(sum == size, "allreduce on the duplicate = %d", sum);
  stale = dup;
  MPI_Comm_free(&dup);
  int rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, stale);
  mtest_expect_error(rc, MPI_ERR_COMM, "allreduce on a freed communicator", "comm");
  int tries = 0, same = 0;
  for (;;) { /* every rank goes on until all got the handle (or gave up) */
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &dup);
    int mine = dup == stale || tries >= 1024;
    MPI_Allreduce(&mine, &same, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (same) break;
    MPI_Comm_free(&dup);
    ++tries;
  }
  MTEST_CHECK(dup == stale, "no new communicator got the freed handle in %d tries", tries);
  int new_size = 0;
  MPI_Comm_size(dup, &new_size);
  for (int i = 0; i < 2; ++i) {
    sum = -1;
    rc = MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, dup);
    MTEST_CHECK(rc == MPI_SUCCESS && sum == new_size,
                "allreduce on the new communicator: rc %d sum %d, want %d", rc, sum, new_size);
  }
  MPI_Comm_free(&dup);
}

/* The same buffers on two communicators of different sizes, alternately: each call runs on its
 * own communicator. */
static void two_comms(void) {
  static int one = 1, sum = 0;
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  int half_size = 0;
  MPI_Comm_size(half, &half_size);
  for (int i = 0; i < 3; ++i) {
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MTEST_CHECK(sum == size, "allreduce on MPI_COMM_WORLD = %d, want %d", sum, size);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, half);
    MTEST_CHECK(sum == half_size, "allreduce on the half = %d, want %d", sum, half_size);
  }
  MPI_Comm_free(&half);
}

/* A call that failed its checks is never what a later call repeats, and the same valid call
 * right after it runs in full; a repeat does not hide an error of a call that differs. */
static void after_errors(void) {
  int s[4] = {rank, rank, rank, rank}, r[4];
  int rc = MPI_Allreduce(s, r, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  mtest_expect_error(rc, MPI_ERR_COUNT, "allreduce count -1", "count");
  for (int i = 0; i < 2; ++i) {
    rc = MPI_Allreduce(s, r, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MTEST_CHECK(rc == MPI_SUCCESS && r[3] == size * (size - 1) / 2, "allreduce rc %d r %d", rc,
                r[3]);
  }
  rc = MPI_Allreduce(s, r, 4, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD);
  mtest_expect_error(rc, MPI_ERR_OP, "allreduce with MPI_OP_NULL", "op");
  rc = MPI_Allreduce(s, r, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MTEST_CHECK(rc == MPI_SUCCESS && r[0] == size * (size - 1) / 2, "allreduce after an error rc %d",
              rc);
}

/* Two threads, each on its own duplicate of MPI_COMM_WORLD (MPI_THREAD_MULTIPLE), repeat their
 * own allreduce and allgather, so that the calls of one collective alternate between two
 * communicators and buffers while each thread's waits let the other in. */
static void *threaded(void *arg) {
  MPI_Comm comm = *(MPI_Comm *)arg;
  int s[4], r[4], all[64];
  for (int round = 0; round < 200; ++round) {
    for (int i = 0; i < 4; ++i) s[i] = val(round, rank, i);
    MPI_Allreduce(s, r, 4, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < 4; ++i) {
      int want = 0;
      for (int q = 0; q < size; ++q) want += val(round, q, i);
      MTEST_CHECK(r[i] == want, "threaded allreduce round %d [%d] = %d, want %d", round, i, r[i],
                  want);
    }
    if (size > 16) continue;
    MPI_Allgather(s, 4, MPI_INT, all, 4, MPI_INT, comm);
    for (int i = 0; i < 4 * size; ++i)
      MTEST_CHECK(all[i] == val(round, i / 4, i % 4), "threaded allgather round %d [%d] = %d",
                  round, i, all[i]);
  }
  return NULL;
}

/* The v forms repeated over the same arrays whose values change: each round places the blocks in
 * the other order (the displacements reversed), with the same counts and buffers, so that only
 * the arrays' values tell the rounds apart. */
static void v_forms(void) {
  enum { kB = 2, kMax = 16 };
  int s[kB * kMax], r[kB * kMax], counts[kMax], displs[kMax];
  if (size > kMax) return;
  for (int round = 0; round < 4; ++round) {
    for (int q = 0; q < size; ++q) {
      counts[q] = kB;
      displs[q] = kB * (round % 2 ? size - 1 - q : q);
    }
    int mine = kB * (round % 2 ? size - 1 - rank : rank);
    for (int i = 0; i < kB; ++i) s[i] = val(round, rank, i);
    for (int i = 0; i < kB * size; ++i) r[i] = -1;
    MPI_Gatherv(s, kB, MPI_INT, r, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
    for (int q = 0; q < size && rank == 0; ++q)
      for (int i = 0; i < kB; ++i)
        MTEST_CHECK(r[displs[q] + i] == val(round, q, i), "gatherv round %d block %d", round, q);
    MPI_Allgatherv(s, kB, MPI_INT, r, counts, displs, MPI_INT, MPI_COMM_WORLD);
    for (int q = 0; q < size; ++q)
      for (int i = 0; i < kB; ++i)
        MTEST_CHECK(r[displs[q] + i] == val(round, q, i), "allgatherv round %d block %d", round, q);
    for (int i = 0; i < kB * size; ++i) s[i] = val(round, rank, i);
    MPI_Scatterv(s, counts, displs, MPI_INT, r, kB, MPI_INT, 0, MPI_COMM_WORLD);
    for (int i = 0; i < kB; ++i)
      MTEST_CHECK(r[i] == val(round, 0, mine + i), "scatterv round %d [%d]", round, i);
    MPI_Alltoallv(s, counts, displs, MPI_INT, r, counts, displs, MPI_INT, MPI_COMM_WORLD);
    for (int q = 0; q < size; ++q)
      for (int i = 0; i < kB; ++i)
        MTEST_CHECK(r[displs[q] + i] == val(round, q, mine + i), "alltoallv round %d from %d",
                    round, q);
  }
}

int main(int argc, char **argv) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  reductions();
  movers();
  freed_type();
  freed_comm();
  two_comms();
  after_errors();
  v_forms();
  MTEST_CHECK(provided == MPI_THREAD_MULTIPLE, "MPI_Init_thread provided %d", provided);
  if (provided == MPI_THREAD_MULTIPLE) mtest_two_threads(threaded);
  return mtest_finalize();
}
