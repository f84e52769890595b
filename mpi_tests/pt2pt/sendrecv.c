/* MPI_Sendrecv and MPI_Sendrecv_replace around a ring (every rank sends right and receives from
 * the left at once, which deadlocks if either waits for the other), eager and rendezvous
 * sizes, with different send and receive tags, MPI_ANY_SOURCE/MPI_ANY_TAG on the receive side,
 * different send and receive types, to self, the _c forms, and MPI_PROC_NULL on either side;
 * and buffers that overlap, which the standard forbids but programs pass (one buffer as both,
 * where MPI_Sendrecv_replace was meant): each rank must get its neighbour's data, at every
 * size, with one warning. */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static const int kCounts[] = {0, 1, 4097, 300000}; /* ints: 16K+ bytes is rendezvous */
#define NCOUNTS ((int)(sizeof kCounts / sizeof kCounts[0]))

static int value(int rank, int k, int i) { return rank * 7777 + k * 31 + i; }

static void ring(int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int *out = malloc(300000 * sizeof(int)), *in = malloc(300000 * sizeof(int));
  for (int k = 0; k < NCOUNTS; k++) {
    int n = kCounts[k], count = -1, bad = 0;
    MPI_Status st;
    for (int i = 0; i < n; i++) out[i] = value(rank, k, i);
    MPI_Sendrecv(out, n, MPI_INT, right, 10 + k, in, n, MPI_INT, left, 10 + k, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    for (int i = 0; i < n; i++) bad |= in[i] != value(left, k, i);
    MTEST_CHECK(!bad && count == n && st.MPI_SOURCE == left && st.MPI_TAG == 10 + k,
                "MPI_Sendrecv %d ints: count %d source %d tag %d bad %d", n, count, st.MPI_SOURCE,
                st.MPI_TAG, bad);
    /* Wildcards and a receive count larger than the message; bytes in, ints out. */
    MPI_Sendrecv(out, n, MPI_INT, right, 20, in, 4 * 300000, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
                 MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_BYTE, &count);
    bad = 0;
    for (int i = 0; i < n; i++) bad |= in[i] != value(left, k, i);
    MTEST_CHECK(!bad && count == 4 * n && st.MPI_SOURCE == left && st.MPI_TAG == 20,
                "wildcard MPI_Sendrecv: count %d source %d", count, st.MPI_SOURCE);
    /* In place: the buffer ends with the left neighbour's data. */
    for (int i = 0; i < n; i++) in[i] = value(rank, k, i);
    MPI_Sendrecv_replace(in, n, MPI_INT, right, 30, left, 30, MPI_COMM_WORLD, &st);
    bad = 0;
    for (int i = 0; i < n; i++) bad |= in[i] != value(left, k, i);
    MTEST_CHECK(!bad && st.MPI_SOURCE == left, "MPI_Sendrecv_replace of %d ints", n);
    /* Large-count forms, send tag differing from receive tag. */
    for (int i = 0; i < n; i++) in[i] = value(rank, k, i);
    MPI_Sendrecv_replace_c(in, n, MPI_INT, right, 40 + rank, left, 40 + left, MPI_COMM_WORLD, &st);
    bad = 0;
    for (int i = 0; i < n; i++) bad |= in[i] != value(left, k, i);
    MTEST_CHECK(!bad && st.MPI_TAG == 40 + left, "MPI_Sendrecv_replace_c of %d ints", n);
    MPI_Sendrecv_c(out, n, MPI_INT, right, 50, in, n, MPI_INT, left, 50, MPI_COMM_WORLD, &st);
    MPI_Count c = -1;
    MPI_Get_count_c(&st, MPI_INT, &c);
    MTEST_CHECK(c == n, "MPI_Sendrecv_c count %ld", (long)c);
  }
  free(out);
  free(in);
}

/* One buffer as both sides, and a receive that starts a block into the send buffer, around the
 * ring at every size (rendezvous ones too), then MPI_Isendrecv. */
static void overlapping(int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int *buf = malloc((300000 + 1) * sizeof(int));
  for (int k = 0; k < NCOUNTS; k++) {
    int n = kCounts[k], bad = 0;
    for (int shift = 0; shift <= 1; shift++) {
      for (int i = 0; i < n + 1; i++) buf[i] = value(rank, k, i);
      MPI_Status st;
      MPI_Sendrecv(buf, n, MPI_INT, right, 60, buf + shift, n, MPI_INT, left, 60, MPI_COMM_WORLD,
                   &st);
      for (int i = 0; i < n; i++) bad |= buf[i + shift] != value(left, k, i);
      MTEST_CHECK(!bad && (n == 0 || st.MPI_SOURCE == left),
                  "MPI_Sendrecv of %d ints, receive %d ints into the send buffer", n, shift);
    }
  }
  int n = kCounts[NCOUNTS - 1], bad = 0;
  for (int i = 0; i < n; i++) buf[i] = value(rank, 9, i);
  MPI_Request r;
  MPI_Isendrecv(buf, n, MPI_INT, right, 61, buf, n, MPI_INT, left, 61, MPI_COMM_WORLD, &r);
  MPI_Wait(&r, MPI_STATUS_IGNORE);
  for (int i = 0; i < n; i++) bad |= buf[i] != value(left, 9, i);
  MTEST_CHECK(!bad, "MPI_Isendrecv of %d ints in one buffer", n);
  free(buf);
}

static void self_and_proc_null(int rank, int size) {
  int out[3] = {rank, 2, 3}, in[3] = {0, 0, 0}, count = -1;
  MPI_Status st;
  MPI_Sendrecv(out, 3, MPI_INT, rank, 1, in, 3, MPI_INT, rank, 1, MPI_COMM_WORLD, &st);
  MTEST_CHECK(in[0] == rank && in[2] == 3 && st.MPI_SOURCE == rank, "MPI_Sendrecv to self");
  MPI_Sendrecv_replace(out, 3, MPI_INT, rank, 2, rank, 2, MPI_COMM_WORLD, &st);
  MTEST_CHECK(out[0] == rank && out[1] == 2, "MPI_Sendrecv_replace to self");
  /* Send to nobody, receive from the left. */
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  in[0] = -1;
  MPI_Sendrecv(out, 1, MPI_INT, right, 3, in, 1, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &st);
  MPI_Get_count(&st, MPI_INT, &count);
  MTEST_CHECK(
      st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0 && in[0] == -1,
      "receive from MPI_PROC_NULL: source %d count %d", st.MPI_SOURCE, count);
  MPI_Sendrecv(out, 1, MPI_INT, MPI_PROC_NULL, 3, in, 1, MPI_INT, left, 3, MPI_COMM_WORLD, &st);
  MTEST_CHECK(in[0] == left && st.MPI_SOURCE == left, "send to MPI_PROC_NULL, receive %d", in[0]);
  MPI_Sendrecv_replace(out, 3, MPI_INT, MPI_PROC_NULL, 4, MPI_PROC_NULL, 4, MPI_COMM_WORLD, &st);
  MTEST_CHECK(out[0] == rank && st.MPI_SOURCE == MPI_PROC_NULL, "replace with MPI_PROC_NULL");
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  ring(rank, size);
  self_and_proc_null(rank, size);
  overlapping(rank, size);
  return mtest_finalize();
}
