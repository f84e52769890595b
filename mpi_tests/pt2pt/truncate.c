/* Truncation: a message longer than the receive buffer gives MPI_ERR_TRUNCATE (under
 * MPI_ERRORS_RETURN) with the status naming its source and tag and counting the bytes that
 * fit, for eager and rendezvous sizes, through MPI_Recv, MPI_Wait, MPI_Sendrecv, MPI_Mrecv;
 * MPI_Waitall reports MPI_ERR_IN_STATUS with each status's MPI_ERROR set. The error text names
 * the call and the rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static const int kSizes[] = {100, 100000};

static int error_class(int code) {
  int c = -1;
  MPI_Error_class(code, &c);
  return c;
}

static void check_text(int code, const char *call, int rank) {
  char text[MPI_MAX_ERROR_STRING], want[64];
  int len = 0;
  MPI_Error_string(code, text, &len);
  snprintf(want, sizeof want, "(rank %d)", rank);
  MTEST_CHECK(strstr(text, call) != NULL && strstr(text, want) != NULL,
              "error text '%s' does not name %s and %s", text, call, want);
}

static void check_truncated(int rc, const MPI_Status *st, int tag, int fit, int rank,
                            const char *call) {
  int count = -1;
  MTEST_CHECK(error_class(rc) == MPI_ERR_TRUNCATE, "%s returned class %d, want MPI_ERR_TRUNCATE",
              call, error_class(rc));
  check_text(rc, call, rank);
  MTEST_CHECK(st->MPI_SOURCE == 0 && st->MPI_TAG == tag, "%s status source %d tag %d", call,
              st->MPI_SOURCE, st->MPI_TAG);
  MPI_Get_count(st, MPI_BYTE, &count);
  MTEST_CHECK(count == fit, "%s status counts %d bytes, want %d", call, count, fit);
}

static void sender(char *buf) {
  /* tags 1..: one message per receive form below, per size */
  for (int k = 0; k < 2; k++)
    for (int form = 0; form < 4; form++)
      MPI_Send(buf, kSizes[k], MPI_BYTE, 1, 10 * k + form, MPI_COMM_WORLD);
  MPI_Send(buf, 10, MPI_BYTE, 1, 100, MPI_COMM_WORLD);
  MPI_Send(buf, 5000, MPI_BYTE, 1, 101, MPI_COMM_WORLD);
  MPI_Send(buf, 10, MPI_BYTE, 1, 102, MPI_COMM_WORLD);
}

static void receiver(char *buf, int rank) {
  for (int k = 0; k < 2; k++) {
    int fit = kSizes[k] / 2, tag = 10 * k;
    MPI_Status st;
    MPI_Request req;
    MPI_Message msg;
    int rc = MPI_Recv(buf, fit, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &st);
    check_truncated(rc, &st, tag, fit, rank, "MPI_Recv");
    MPI_Irecv(buf, fit, MPI_BYTE, 0, tag + 1, MPI_COMM_WORLD, &req);
    rc = MPI_Wait(&req, &st);
    check_truncated(rc, &st, tag + 1, fit, rank, "MPI_Wait");
    MTEST_CHECK(req == MPI_REQUEST_NULL, "a failed request is freed by MPI_Wait");
    rc = MPI_Sendrecv(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, buf, fit, MPI_BYTE, 0, tag + 2,
                      MPI_COMM_WORLD, &st);
    check_truncated(rc, &st, tag + 2, fit, rank, "MPI_Sendrecv");
    MPI_Mprobe(0, tag + 3, MPI_COMM_WORLD, &msg, &st);
    rc = MPI_Mrecv(buf, fit, MPI_BYTE, &msg, &st);
    check_truncated(rc, &st, tag + 3, fit, rank, "MPI_Mrecv");
  }
  /* Waitall: the middle one of three is truncated. */
  MPI_Request reqs[3];
  MPI_Status sts[3];
  MPI_Irecv(buf, 10, MPI_BYTE, 0, 100, MPI_COMM_WORLD, &reqs[0]);
  MPI_Irecv(buf + 100, 1000, MPI_BYTE, 0, 101, MPI_COMM_WORLD, &reqs[1]);
  MPI_Irecv(buf + 10000, 10, MPI_BYTE, 0, 102, MPI_COMM_WORLD, &reqs[2]);
  for (int i = 0; i < 3; i++) sts[i].MPI_ERROR = -1;
  int rc = MPI_Waitall(3, reqs, sts);
  MTEST_CHECK(error_class(rc) == MPI_ERR_IN_STATUS, "MPI_Waitall returned class %d",
              error_class(rc));
  MTEST_CHECK(sts[0].MPI_ERROR == MPI_SUCCESS && sts[2].MPI_ERROR == MPI_SUCCESS,
              "MPI_ERROR of the good receives: %d %d", sts[0].MPI_ERROR, sts[2].MPI_ERROR);
  MTEST_CHECK(error_class(sts[1].MPI_ERROR) == MPI_ERR_TRUNCATE, "MPI_ERROR of the truncated: %d",
              sts[1].MPI_ERROR);
  MTEST_CHECK(sts[1].MPI_TAG == 101 && sts[1].MPI_SOURCE == 0, "truncated status tag %d",
              sts[1].MPI_TAG);
  for (int i = 0; i < 3; i++) MTEST_CHECK(reqs[i] == MPI_REQUEST_NULL, "request %d not freed", i);
}

int main(int argc, char **argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  char *buf = calloc(200000, 1);
  if (rank == 0) sender(buf);
  if (rank == 1) receiver(buf, rank);
  free(buf);
  return mtest_finalize();
}
