/* MPI_PROC_NULL everywhere: every send to it succeeds at once and moves nothing; every receive
 * from it completes at once with source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0, and leaves the
 * buffer alone; probes find such a message at once. No other rank is involved. */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static void check_null_status(const MPI_Status *st, const char *call) {
  int count = -1;
  MPI_Get_count(st, MPI_INT, &count);
  MTEST_CHECK(st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG && count == 0,
              "%s: source %d tag %d count %d", call, st->MPI_SOURCE, st->MPI_TAG, count);
}

int main(int argc, char **argv) {
  int buf[4] = {1, 2, 3, 4}, flag = 0;
  MPI_Status st;
  MPI_Request req;
  MPI_Message msg;
  MPI_Init(&argc, &argv);
  MTEST_CHECK(MPI_Send(buf, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD) == MPI_SUCCESS, "Send");
  MTEST_CHECK(MPI_Ssend(buf, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD) == MPI_SUCCESS, "Ssend");
  MTEST_CHECK(MPI_Rsend(buf, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD) == MPI_SUCCESS, "Rsend");
  MTEST_CHECK(MPI_Bsend(buf, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD) == MPI_SUCCESS, "Bsend");
  MTEST_CHECK(MPI_Send_c(buf, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD) == MPI_SUCCESS,
              "Send_c");
  memset(&st, 0, sizeof st);
  MPI_Recv(buf, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
  check_null_status(&st, "MPI_Recv");
  MTEST_CHECK(buf[0] == 1 && buf[3] == 4, "MPI_Recv from MPI_PROC_NULL wrote the buffer");
  MPI_Recv_c(buf, 4, MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  check_null_status(&st, "MPI_Recv_c");

  int (*isends[])(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *) = {
      MPI_Isend,     MPI_Issend,     MPI_Irsend,     MPI_Ibsend,
      MPI_Send_init, MPI_Ssend_init, MPI_Rsend_init, MPI_Bsend_init};
  for (int i = 0; i < 8; i++) {
    req = MPI_REQUEST_NULL;
    isends[i](buf, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req);
    MTEST_CHECK(req != MPI_REQUEST_NULL, "send form %d gave no request", i);
    if (i >= 4) MPI_Start(&req);
    flag = 0;
    MPI_Test(&req, &flag, &st);
    MTEST_CHECK(flag, "send form %d to MPI_PROC_NULL is not complete at once", i);
    if (i >= 4) MPI_Request_free(&req);
  }
  MPI_Irecv(buf, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req);
  MPI_Test(&req, &flag, &st);
  MTEST_CHECK(flag, "MPI_Irecv from MPI_PROC_NULL is not complete at once");
  check_null_status(&st, "MPI_Irecv");
  MPI_Recv_init(buf, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req);
  MPI_Start(&req);
  MPI_Wait(&req, &st);
  check_null_status(&st, "MPI_Recv_init");
  MPI_Request_free(&req);

  MPI_Probe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
  check_null_status(&st, "MPI_Probe");
  flag = 0;
  MPI_Iprobe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
  MTEST_CHECK(flag, "MPI_Iprobe of MPI_PROC_NULL");
  check_null_status(&st, "MPI_Iprobe");
  MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st);
  MTEST_CHECK(msg == MPI_MESSAGE_NO_PROC, "MPI_Mprobe");
  MPI_Mrecv(buf, 4, MPI_INT, &msg, &st);
  check_null_status(&st, "MPI_Mrecv");

  MPI_Sendrecv(buf, 4, MPI_INT, MPI_PROC_NULL, 0, buf, 4, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD,
               &st);
  check_null_status(&st, "MPI_Sendrecv");
  MTEST_CHECK(buf[0] == 1 && buf[3] == 4, "buffer changed by a proc-null operation");
  return mtest_finalize();
}
