/* A message over 2 GiB each way between two ranks: rank 0 sends 2.1 GiB of MPI_BYTE with
 * MPI_Send_c, rank 1 receives it with MPI_Recv_c; MPI_Get_count_c and MPI_Get_elements_x count
 * it and MPI_Get_count says MPI_UNDEFINED. Then back, with int counts of MPI_INT whose bytes
 * exceed 2 GiB (MPI_Isend/MPI_Irecv). Every word is checked. */
#include <stdint.h>
#include <stdlib.h>

#include "mtest.h"

#define BYTES 2254857832L /* 2.1 GiB, a multiple of 8 */

static uint64_t word(long i, int salt) { return (uint64_t)i * 0x9E3779B97F4A7C15ull + salt; }

static void fill(uint64_t *w, int salt) {
  for (long i = 0; i < BYTES / 8; i++) w[i] = word(i, salt);
}
static long first_bad(const uint64_t *w, int salt) {
  for (long i = 0; i < BYTES / 8; i++)
    if (w[i] != word(i, salt)) return i;
  return -1;
}

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  uint64_t *buf = malloc(BYTES);
  MTEST_CHECK(buf != NULL, "cannot allocate %ld bytes", BYTES);
  if (buf == NULL) MPI_Abort(MPI_COMM_WORLD, 1);
  MPI_Status st;
  MPI_Count c = -1;
  int n = 0;
  const int ints = (int)(BYTES / 4);
  if (rank == 0) {
    fill(buf, 1);
    MPI_Send_c(buf, BYTES, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
    MPI_Request req;
    MPI_Irecv(buf, ints, MPI_INT, 1, 2, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, &st);
    MPI_Get_count(&st, MPI_INT, &n);
    MTEST_CHECK(n == ints, "MPI_Get_count of %d ints: %d", ints, n);
    long bad = first_bad(buf, 2);
    MTEST_CHECK(bad < 0, "word %ld of the returned message differs", bad);
  } else if (rank == 1) {
    MPI_Recv_c(buf, BYTES, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st);
    MPI_Get_count_c(&st, MPI_BYTE, &c);
    MTEST_CHECK(c == BYTES, "MPI_Get_count_c %ld, want %ld", (long)c, BYTES);
    MPI_Get_elements_x(&st, MPI_BYTE, &c);
    MTEST_CHECK(c == BYTES, "MPI_Get_elements_x %ld", (long)c);
    MPI_Get_count(&st, MPI_BYTE, &n);
    MTEST_CHECK(n == MPI_UNDEFINED, "MPI_Get_count of 2.1 GiB: %d, want MPI_UNDEFINED", n);
    long bad = first_bad(buf, 1);
    MTEST_CHECK(bad < 0, "word %ld of the message differs", bad);
    fill(buf, 2);
    MPI_Request req;
    MPI_Isend(buf, ints, MPI_INT, 0, 2, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  free(buf);
  return mtest_finalize();
}
