/* Statuses: MPI_Get_count, MPI_Get_elements(_x, _c) and MPI_Get_count_c read what the receive
 * wrote, MPI_UNDEFINED when the bytes are not whole elements or (int forms) too many;
 * MPI_Status_set_elements(_x) and MPI_Status_set_cancelled write a status that the readers and
 * MPI_Test_cancelled then see; MPI_Request_get_status reports completion without freeing. */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static void counts_of_a_message(int rank) {
  if (rank == 1) {
    char bytes[14] = {0};
    MPI_Send(bytes, 14, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
  } else if (rank == 0) {
    char bytes[64];
    MPI_Status st;
    int n = -1;
    MPI_Count c = -1;
    MPI_Recv(bytes, 64, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_BYTE, &n);
    MTEST_CHECK(n == 14, "MPI_Get_count(MPI_BYTE) %d", n);
    MPI_Get_count(&st, MPI_SHORT, &n);
    MTEST_CHECK(n == 7, "MPI_Get_count(MPI_SHORT) %d", n);
    MPI_Get_count(&st, MPI_INT, &n);
    MTEST_CHECK(n == MPI_UNDEFINED, "14 bytes of MPI_INT: %d, want MPI_UNDEFINED", n);
    MPI_Get_elements(&st, MPI_INT, &n);
    MTEST_CHECK(n == MPI_UNDEFINED, "MPI_Get_elements of a partial int: %d", n);
    MPI_Get_elements_x(&st, MPI_SHORT, &c);
    MTEST_CHECK(c == 7, "MPI_Get_elements_x %ld", (long)c);
    MPI_Get_count_c(&st, MPI_CHAR, &c);
    MTEST_CHECK(c == 14, "MPI_Get_count_c %ld", (long)c);
  }
}

static void set_and_read(void) {
  MPI_Status st;
  memset(&st, 0, sizeof st);
  int n = -1, flag = -1;
  MPI_Count c = -1;
  MPI_Status_set_elements(&st, MPI_DOUBLE, 5);
  MPI_Get_count(&st, MPI_DOUBLE, &n);
  MTEST_CHECK(n == 5, "set 5 doubles, got %d", n);
  MPI_Get_count(&st, MPI_INT, &n);
  MTEST_CHECK(n == 10, "5 doubles are %d ints", n);
  MPI_Test_cancelled(&st, &flag);
  MTEST_CHECK(flag == 0, "cancelled flag %d", flag);
  MPI_Status_set_cancelled(&st, 1);
  MPI_Test_cancelled(&st, &flag);
  MTEST_CHECK(flag == 1, "cancelled flag after set %d", flag);
  MPI_Get_count(&st, MPI_DOUBLE, &n);
  MTEST_CHECK(n == 5, "setting the cancelled flag changed the count: %d", n);
  /* Above what an int holds: 3e9 elements of 4 bytes = 12e9 bytes. */
  MPI_Status_set_elements_x(&st, MPI_INT, 3000000000L);
  MPI_Get_count(&st, MPI_INT, &n);
  MTEST_CHECK(n == MPI_UNDEFINED, "3e9 ints through MPI_Get_count: %d", n);
  MPI_Get_count_c(&st, MPI_INT, &c);
  MTEST_CHECK(c == 3000000000L, "MPI_Get_count_c %ld", (long)c);
  MPI_Get_elements_c(&st, MPI_BYTE, &c);
  MTEST_CHECK(c == 12000000000L, "MPI_Get_elements_c bytes %ld", (long)c);
  MPI_Get_elements(&st, MPI_INT, &n);
  MTEST_CHECK(n == MPI_UNDEFINED, "MPI_Get_elements of 3e9: %d", n);
  MPI_Test_cancelled(&st, &flag);
  MTEST_CHECK(flag == 1, "set_elements cleared the cancelled flag");
  MPI_Status_set_cancelled(&st, 0);
  MPI_Test_cancelled(&st, &flag);
  MTEST_CHECK(flag == 0, "cancelled flag after clearing %d", flag);
  MPI_Status_set_elements(&st, MPI_INT, 0);
  MPI_Get_count(&st, MPI_INT, &n);
  MTEST_CHECK(n == 0, "zero elements: %d", n);
}

static void get_status_does_not_free(int rank) {
  int x = -1, flag = 0, v = 8;
  MPI_Request req;
  MPI_Status st;
  MPI_Irecv(&x, 1, MPI_INT, rank, 3, MPI_COMM_WORLD, &req);
  MPI_Request_get_status(req, &flag, &st);
  MTEST_CHECK(!flag, "MPI_Request_get_status: complete before the send");
  MPI_Send(&v, 1, MPI_INT, rank, 3, MPI_COMM_WORLD);
  while (!flag) MPI_Request_get_status(req, &flag, &st);
  MTEST_CHECK(st.MPI_SOURCE == rank && st.MPI_TAG == 3 && x == 8, "status %d/%d data %d",
              st.MPI_SOURCE, st.MPI_TAG, x);
  MTEST_CHECK(req != MPI_REQUEST_NULL, "MPI_Request_get_status freed the request");
  MPI_Request_get_status(req, &flag, &st);
  MTEST_CHECK(flag, "a second MPI_Request_get_status");
  MPI_Wait(&req, &st);
  MTEST_CHECK(req == MPI_REQUEST_NULL && st.MPI_TAG == 3, "MPI_Wait after MPI_Request_get_status");
  MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st);
  MTEST_CHECK(flag && st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG,
              "MPI_Request_get_status of MPI_REQUEST_NULL");
}

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  counts_of_a_message(rank);
  set_and_read();
  get_status_does_not_free(rank);
  return mtest_finalize();
}
